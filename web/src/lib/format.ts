import { useHydrated } from '../hooks/useHydrated';

/** Dates and texts as the public pages show them (docs/product.md#screens, #limits-and-timings), in US English. */
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * 'March 5, 2025' (longDate), 'March 5, 2025 at 3:04 PM' (dateTime), 'Mar 5, 2025' (shortDate):
 * what Intl.DateTimeFormat('en-US') writes, written here instead: the first Intl formatter a
 * page makes loads the locale's data, about 20 ms of a phone's main thread while it hydrates,
 * and the server's Node and the reader's browser could ship different versions of that data.
 */
export type DateFormat = 'longDate' | 'dateTime' | 'shortDate';

/**
 * `value` as the public pages show it. The server cannot know the reader's time zone, so its
 * HTML (and the browser's hydration of it) uses UTC, with the time marked 'UTC'; the reader's
 * own zone follows once hydrated.
 */
export function formatDate(kind: DateFormat, value: string, utc = false): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const month = MONTHS[utc ? date.getUTCMonth() : date.getMonth()]!;
  const day = utc ? date.getUTCDate() : date.getDate();
  const year = utc ? date.getUTCFullYear() : date.getFullYear();
  if (kind === 'shortDate') return `${month.slice(0, 3)} ${day}, ${year}`;
  const longDate = `${month} ${day}, ${year}`;
  if (kind === 'longDate') return longDate;
  const hours = utc ? date.getUTCHours() : date.getHours();
  const minutes = utc ? date.getUTCMinutes() : date.getMinutes();
  const time = `${hours % 12 || 12}:${String(minutes).padStart(2, '0')} ${hours < 12 ? 'AM' : 'PM'}`;
  return `${longDate} at ${time}${utc ? ' UTC' : ''}`;
}

export const formatLongDate = (value: string) => formatDate('longDate', value);
export const formatDateTime = (value: string) => formatDate('dateTime', value);
export const formatShortDate = (value: string) => formatDate('shortDate', value);

/** A formatter for rendered pages: UTC until hydrated, then the reader's time zone. */
export function useDateFormat(): (kind: DateFormat, value: string) => string {
  const utc = !useHydrated();
  return (kind, value) => formatDate(kind, value, utc);
}

/** Cards preview the first 200 characters of a post (docs/product.md#limits-and-timings). */
export const PREVIEW_LENGTH = 200;

/** The text with each run of white space as one space, none at its ends. */
const collapseSpace = (content: string) => content.replace(/\s+/g, ' ').trim();

export function preview(content: string, length = PREVIEW_LENGTH): string {
  const text = collapseSpace(content);
  return text.length > length ? `${text.slice(0, length).trimEnd()}...` : text;
}

/**
 * Just enough of `content` for preview() to write the same card text: a list's data carries no
 * more of each excerpt than its card shows (a 30-card page's HTML is then small enough for a
 * new connection's first round trip). Two characters past the preview: one keeps it marked as
 * cut, the other survives preview's trim of a trailing space.
 */
export function previewSource(content: string, length = PREVIEW_LENGTH): string {
  return collapseSpace(content).slice(0, length + 2);
}
