import { useHydrated } from '../hooks/useHydrated';

/** Dates and texts as the public pages show them (SPEC.md §2, §9). */
const locale = 'en-US';

const FORMATS = {
  /** 'March 5, 2025' */
  longDate: { year: 'numeric', month: 'long', day: 'numeric' },
  /** 'March 5, 2025 at 3:04 PM' */
  dateTime: { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' },
  /** 'Mar 5, 2025' */
  shortDate: { year: 'numeric', month: 'short', day: 'numeric' },
} as const;

export type DateFormat = keyof typeof FORMATS;

/** The formatters, made once: in the reader's time zone, and in UTC with the time marked 'UTC'. */
const formatters = (utc: boolean) =>
  Object.fromEntries(
    Object.entries(FORMATS).map(([kind, options]) => [
      kind,
      new Intl.DateTimeFormat(
        locale,
        utc
          ? { ...options, timeZone: 'UTC', timeZoneName: 'hour' in options ? 'short' : undefined }
          : options,
      ),
    ]),
  ) as Record<DateFormat, Intl.DateTimeFormat>;
const LOCAL = formatters(false);
const UTC = formatters(true);

/**
 * `value` as the public pages show it. The server cannot know the reader's time zone, so its
 * HTML (and the browser's hydration of it) uses UTC; the reader's own zone follows once hydrated.
 */
function formatDate(kind: DateFormat, value: string, utc = false): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : (utc ? UTC : LOCAL)[kind].format(date);
}

export const formatLongDate = (value: string) => formatDate('longDate', value);
export const formatDateTime = (value: string) => formatDate('dateTime', value);
export const formatShortDate = (value: string) => formatDate('shortDate', value);

/** A formatter for rendered pages: UTC until hydrated, then the reader's time zone. */
export function useDateFormat(): (kind: DateFormat, value: string) => string {
  const utc = !useHydrated();
  return (kind, value) => formatDate(kind, value, utc);
}

/** Cards preview the first 200 characters of a post (SPEC.md §9). */
export const PREVIEW_LENGTH = 200;

export function preview(content: string, length = PREVIEW_LENGTH): string {
  const text = content.replace(/\s+/g, ' ').trim();
  return text.length > length ? `${text.slice(0, length).trimEnd()}...` : text;
}
