import { z } from 'zod';

/**
 * Visit statistics without cookies or personal data: a page view is its path, the day, a
 * visitor key (a hash of the day's random salt, the site, the address and the browser — the
 * salt is forgotten after its day, so keys of different days cannot be linked), the referrer's
 * host, a device class and, when a proxy says it, the country. The salt and the keys live in
 * memory or Redis only, until their day is over; the database keeps daily totals. No address,
 * browser string or full referrer is ever stored.
 */

/** POST /api/views, sent with navigator.sendBeacon on each page view. */
export const viewBeaconSchema = z.object({
  path: z.string().min(1).max(500).startsWith('/'),
  referrer: z.string().max(2000).optional().default(''),
});
export type ViewBeacon = z.infer<typeof viewBeaconSchema>;

export const DEVICE_CLASSES = ['phone', 'tablet', 'desktop'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/** One counted view as the gateway hands it to the posts service (nothing that names a person). */
export interface RecordedView {
  /** ISO time of the view. */
  at: string;
  path: string;
  /** "post" views count for their post (by its slug). */
  kind: 'page' | 'post';
  slug?: string;
  /**
   * The first VISITOR_KEY_HEX hex digits of sha256(day's salt, site, address, browser): 64 bits
   * tell a day's visitors apart (a clash is about 1 in 10^7 at a million a day); never stored,
   * only checked against the day's set.
   */
  visitor: string;
  referrerHost: string | null;
  device: DeviceClass;
  country: string | null;
}

/** posts.recordViews: a batch, keyed so a retried batch is counted once. */
export interface ViewBatch {
  id: string;
  views: RecordedView[];
}

/** Hex digits of a visitor key. */
export const VISITOR_KEY_HEX = 16;

/**
 * A batch as the posts service accepts it. A visitor key of 64 hex (the whole sha256, as
 * gateways before VISITOR_KEY_HEX sent it) is taken too, so a gateway not yet upgraded loses
 * nothing; the posts service keeps only its first VISITOR_KEY_HEX digits.
 */
export const viewBatchSchema = z.object({
  id: z.uuid(),
  views: z
    .array(
      z.object({
        at: z.iso.datetime(),
        path: z.string().min(1).max(500),
        kind: z.enum(['page', 'post']),
        slug: z.string().max(200).optional(),
        visitor: z.string().regex(/^[0-9a-f]{16}(?:[0-9a-f]{48})?$/),
        referrerHost: z.string().max(255).nullable(),
        device: z.enum(DEVICE_CLASSES),
        country: z
          .string()
          .regex(/^[A-Z]{2}$/)
          .nullable(),
      }),
    )
    .max(50_000),
});

/** posts.viewSalt: the day whose salt is asked for. */
export const viewSaltRequestSchema = z.object({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });
/** posts.recentViews: the posts (by id) whose last RECENT_VIEW_DAYS of views are asked for. */
export const recentViewsRequestSchema = z.object({ ids: z.array(z.number().int()).max(1000) });

/** Stats cover at most this many days at once. */
export const STATS_MAX_DAYS = 366;
export const STATS_LIVE_MINUTES = 5;
/** The admin's post list shows each post's views over this many days. */
export const RECENT_VIEW_DAYS = 30;

/**
 * Flooding limits of POST /api/views, per client address: beacons past these are answered 204
 * like any other and count nothing. A minute's beacons (nginx enforces the same rate), and the
 * distinct browsers (visitors) counted from one address in a UTC day.
 */
export const VIEWS_PER_ADDRESS_PER_MINUTE = 60;
export const VISITORS_PER_ADDRESS_PER_DAY = 50;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)');

/** GET /api/admin/stats?from=YYYY-MM-DD&to=YYYY-MM-DD (both days included); postId for one post's stats. */
export const statsQuerySchema = z
  .object({
    from: day,
    to: day,
    postId: z.coerce.number().int().positive().optional(),
  })
  .superRefine((query, ctx) => {
    const from = Date.parse(`${query.from}T00:00:00Z`);
    const to = Date.parse(`${query.to}T00:00:00Z`);
    if (Number.isNaN(from) || Number.isNaN(to))
      ctx.addIssue({ code: 'custom', message: 'from and to must be real dates' });
    else if (to < from) ctx.addIssue({ code: 'custom', message: 'to must not be before from' });
    else if ((to - from) / 86_400_000 + 1 > STATS_MAX_DAYS)
      ctx.addIssue({ code: 'custom', message: `a range may cover at most ${STATS_MAX_DAYS} days` });
  });
export type StatsQuery = z.infer<typeof statsQuerySchema>;

export interface StatsReport {
  days: { date: string; views: number; visitors: number }[];
  topPosts: { postId: number; title: string; url: string | null; views: number; visitors: number }[];
  referrers: { host: string; views: number }[];
  devices: { device: DeviceClass; views: number }[];
  countries: { country: string; views: number }[];
  /** Visitors in the last STATS_LIVE_MINUTES minutes. */
  live: number;
}

/** The device class of a browser string; the string itself is never kept. */
export function deviceClassOf(userAgent: string): DeviceClass {
  if (/iPad|Tablet|PlayBook|Silk|Kindle|(Android(?!.*Mobile))/i.test(userAgent)) return 'tablet';
  if (/Mobi|iPhone|iPod|Android.*Mobile|Windows Phone|Opera Mini/i.test(userAgent)) return 'phone';
  return 'desktop';
}
