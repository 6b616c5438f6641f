import { useHydrated } from '../hooks/useHydrated';

/** Dates and texts as the public pages show them (SPEC.md §2, §9). */
const locale = 'en-US';

const LONG_DATE = { year: 'numeric', month: 'long', day: 'numeric' } as const;
const DATE_TIME = { ...LONG_DATE, hour: 'numeric', minute: '2-digit' } as const;
const SHORT_DATE = { year: 'numeric', month: 'short', day: 'numeric' } as const;

/**
 * A date in the reader's time zone once the page runs in the browser. The server cannot know
 * that zone, so its HTML (and the browser's hydration of it) shows the date in UTC, with the
 * time marked 'UTC'; the reader's own time replaces it as soon as the page is hydrated.
 */
function formatters(zone: 'local' | 'UTC') {
  const options = zone === 'UTC' ? { timeZone: 'UTC' } : {};
  return {
    longDate: new Intl.DateTimeFormat(locale, { ...LONG_DATE, ...options }),
    dateTime: new Intl.DateTimeFormat(locale, {
      ...DATE_TIME,
      ...options,
      ...(zone === 'UTC' ? { timeZoneName: 'short' } : {}),
    }),
    shortDate: new Intl.DateTimeFormat(locale, { ...SHORT_DATE, ...options }),
  };
}

const LOCAL = formatters('local');
const UTC = formatters('UTC');

export type DateFormat = keyof typeof LOCAL;

function format(formatter: Intl.DateTimeFormat, value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : formatter.format(date);
}

/** 'March 5, 2025' */
export const formatLongDate = (value: string) => format(LOCAL.longDate, value);
/** 'March 5, 2025 at 3:04 PM' */
export const formatDateTime = (value: string) => format(LOCAL.dateTime, value);
/** 'Mar 5, 2025' */
export const formatShortDate = (value: string) => format(LOCAL.shortDate, value);

/** A formatter for rendered pages: UTC until hydrated, then the reader's time zone. */
export function useDateFormat(): (kind: DateFormat, value: string) => string {
  const set = useHydrated() ? LOCAL : UTC;
  return (kind, value) => format(set[kind], value);
}

/** Cards preview the first 200 characters of a post (SPEC.md §9). */
export const PREVIEW_LENGTH = 200;

export function preview(content: string, length = PREVIEW_LENGTH): string {
  const text = content.replace(/\s+/g, ' ').trim();
  return text.length > length ? `${text.slice(0, length).trimEnd()}...` : text;
}
