import { formatDate, preview, previewSource, type DateFormat } from './format';

/** What the pages wrote with Intl before: the hand-written format must match it exactly. */
const INTL: Record<DateFormat, Intl.DateTimeFormatOptions> = {
  longDate: { year: 'numeric', month: 'long', day: 'numeric' },
  dateTime: { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' },
  shortDate: { year: 'numeric', month: 'short', day: 'numeric' },
};
const intl = (kind: DateFormat, value: string, utc: boolean) =>
  new Intl.DateTimeFormat(
    'en-US',
    utc
      ? { ...INTL[kind], timeZone: 'UTC', timeZoneName: kind === 'dateTime' ? 'short' : undefined }
      : INTL[kind],
  ).format(new Date(value));

/** 2,000 instants over 1995-2045, midnight and noon included (the 12 AM / 12 PM edges). */
const instants = [
  '2025-03-05T00:00:00.000Z',
  '2025-03-05T12:00:00.000Z',
  '2025-12-31T23:59:00.000Z',
  ...Array.from({ length: 2000 }, (_, i) => new Date(Date.UTC(1995, 0, 1) + i * 789_654_321).toISOString()),
];
const kinds: DateFormat[] = ['longDate', 'dateTime', 'shortDate'];

describe('dates as the pages show them', () => {
  test('in UTC (the server and hydration) exactly what Intl writes, the time marked UTC', () => {
    expect(formatDate('dateTime', '2025-05-01T12:00:00Z', true)).toBe('May 1, 2025 at 12:00 PM UTC');
    for (const value of instants)
      for (const kind of kinds) expect(formatDate(kind, value, true)).toBe(intl(kind, value, true));
  });

  // Jest's sandbox cannot change the process's zone: the browser test (server-rendering.spec.ts)
  // reads a post in Tokyo's zone.
  test("in the reader's zone exactly what Intl writes", () => {
    for (const value of instants)
      for (const kind of kinds) expect(formatDate(kind, value)).toBe(intl(kind, value, false));
  });

  test('an unreadable date shows nothing', () => {
    expect(formatDate('longDate', 'not a date')).toBe('');
  });
});

describe("a card's preview", () => {
  test('from the shortened excerpt a list carries, the same text as from the whole one', () => {
    const words = ['wheel', 'tyre', 'a', 'sourdough', ' ', '\n', 'espresso-grinder', 'x'];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < 3000; i++) {
      let text = '';
      const length = Math.floor(random() * 320);
      while (text.length < length)
        text += words[Math.floor(random() * words.length)] + (random() < 0.8 ? ' ' : '');
      const source = previewSource(text);
      expect(source.length).toBeLessThanOrEqual(202);
      expect(preview(source)).toBe(preview(text));
    }
  });
});
