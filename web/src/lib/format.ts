/** Dates and texts as the public pages show them (SPEC.md §2, §9). */
const locale = 'en-US';

const longDate = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric' });
const dateTime = new Intl.DateTimeFormat(locale, {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});
const shortDate = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'short', day: 'numeric' });

function format(formatter: Intl.DateTimeFormat, value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '' : formatter.format(date);
}

/** 'March 5, 2025' */
export const formatLongDate = (value: string) => format(longDate, value);
/** 'March 5, 2025 at 3:04 PM' */
export const formatDateTime = (value: string) => format(dateTime, value);
/** 'Mar 5, 2025' */
export const formatShortDate = (value: string) => format(shortDate, value);

/** Cards preview the first 200 characters of a post (SPEC.md §9). */
export const PREVIEW_LENGTH = 200;

export function preview(content: string, length = PREVIEW_LENGTH): string {
  const text = content.replace(/\s+/g, ' ').trim();
  return text.length > length ? `${text.slice(0, length).trimEnd()}...` : text;
}
