import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  describeValidationError,
  deviceClassOf,
  Patterns,
  routePage,
  type RecordedView,
  type ViewBatch,
  type ViewBeacon,
  viewBeaconSchema,
} from '@blog/contracts';
import type { NextFunction, Request, Response } from 'express';
import { isbot } from 'isbot';
import { createHash, randomUUID } from 'node:crypto';
import { OptionalAuth } from '../common/optional-auth.js';
import { siteUrl } from '../common/site-url.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { SiteConfigSource } from '../pages/site-config.service.js';
import { ServiceClients } from '../rpc/service-clients.js';

/** The app's own screens are not pages a reader reads. */
const PRIVATE_PATHS = /^\/(admin|login|register|account)(\/|$)/;
/** Views waiting in memory at most; past this the oldest are dropped (and said so in the log). */
const MAX_WAITING = 200_000;
/** One hand-over carries at most this many views (the rest go on the next tick). */
const BATCH_MAX = 20_000;

/** A view before its visitor key is made: held in memory only, never written or logged. */
interface PendingView extends Omit<RecordedView, 'visitor'> {
  day: string;
  address: string;
  browser: string;
}

/** The clock, replaceable in tests (the day's salt changes at midnight UTC). */
export const VIEW_CLOCK = Symbol('VIEW_CLOCK');
export type Clock = () => Date;

/**
 * Counts page views without cookies or personal data. A beacon is dropped for a known bot
 * (isbot), for DNT: 1 or Sec-GPC: 1, for a signed-in admin and for a path that is neither a
 * page nor a post. A counted view keeps its path, the referrer's host, a device class, the
 * proxy's country header and a visitor key: sha256 of the day's salt (from the posts service,
 * deleted after its day), the site, the address and the browser. Views are handed to the
 * posts service in batches at most once per VIEW_FLUSH_MS; a batch it cannot take stays
 * (same id, so it is never counted twice) and goes again on the next tick.
 */
@Injectable()
export class ViewCounter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ViewCounter.name);
  private waiting: PendingView[] = [];
  private retry: ViewBatch | null = null;
  private salt: { day: string; value: string } | null = null;
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly services: ServiceClients,
    private readonly site: SiteConfigSource,
    private readonly auth: OptionalAuth,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(VIEW_CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.VIEW_FLUSH_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Whether the beacon was counted (the answer is 204 either way). */
  async count(req: Request, beacon: ViewBeacon): Promise<boolean> {
    if (req.header('dnt') === '1' || req.header('sec-gpc') === '1') return false;
    const browser = req.header('user-agent') ?? '';
    if (!browser || isbot(browser)) return false;
    if (await this.auth.isAdmin(req)) return false;
    const path = beacon.path.split(/[?#]/)[0]!;
    if (PRIVATE_PATHS.test(path)) return false;
    const site = await this.site.get();
    const base = siteUrl(this.config, req);
    const route = routePage(site, base, path);
    if (!route || (route.kind !== 'page' && route.kind !== 'post')) return false;
    const now = this.clock();
    if (this.waiting.length >= MAX_WAITING) {
      this.waiting.shift();
      this.logger.warn('views waiting for the posts service: the oldest was dropped');
    }
    this.waiting.push({
      at: now.toISOString(),
      day: now.toISOString().slice(0, 10),
      path: route.kind === 'post' ? route.path : path.replace(/\/+$/, '') || '/',
      kind: route.kind,
      ...(route.kind === 'post' ? { slug: route.slug } : {}),
      referrerHost: referrerHost(beacon.referrer, base),
      device: deviceClassOf(browser),
      country: countryOf(req.header('cf-ipcountry')),
      address: req.ip ?? '',
      browser,
    });
    return true;
  }

  /** Hands the waiting views over; one flush at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async send(): Promise<void> {
    try {
      const batch = this.retry ?? (await this.nextBatch());
      if (!batch) return;
      this.retry = batch;
      await this.services.call('posts', Patterns.posts.recordViews, batch, 10_000);
      this.retry = null;
    } catch (error) {
      this.logger.warn(
        `views not handed over yet (${this.retry?.views.length ?? 0} wait): ${(error as Error).message}`,
      );
    }
  }

  private async nextBatch(): Promise<ViewBatch | null> {
    if (!this.waiting.length) return null;
    const taken = this.waiting.slice(0, BATCH_MAX);
    const views: RecordedView[] = [];
    for (const view of taken) {
      const { day, address, browser, ...rest } = view;
      views.push({ ...rest, visitor: await this.visitorKey(day, address, browser) });
    }
    // Only once every key is made: a failure above leaves the views waiting.
    this.waiting = this.waiting.slice(taken.length);
    return { id: randomUUID(), views };
  }

  private async visitorKey(day: string, address: string, browser: string): Promise<string> {
    if (this.salt?.day !== day)
      this.salt = { day, value: await this.services.call<string>('posts', Patterns.posts.viewSalt, { day }) };
    return createHash('sha256')
      .update(`${this.salt.value}\n${this.config.SITE_URL ?? ''}\n${address}\n${browser}`)
      .digest('hex');
  }
}

/** The referrer's host, unless it is this site itself or not a web address. */
function referrerHost(referrer: string, base: string): string | null {
  if (!referrer) return null;
  try {
    const url = new URL(referrer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    const host = url.hostname.toLowerCase().slice(0, 255);
    return host === new URL(base).hostname.toLowerCase() ? null : host;
  } catch {
    return null;
  }
}

/** A two-letter country from the proxy (CF-IPCountry); XX and T1 (unknown, Tor) are none. */
function countryOf(header: string | undefined): string | null {
  const code = header?.trim().toUpperCase() ?? '';
  return /^[A-Z]{2}$/.test(code) && code !== 'XX' && code !== 'T1' ? code : null;
}

/**
 * POST /api/views, answered before Nest's routing (a beacon comes with every page view and
 * must cost less than a cached read): 400 for a malformed body, else 204 whether counted or
 * not, so a reader learns nothing from it.
 */
export function viewBeaconMiddleware(counter: ViewCounter) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST') return next();
    const beacon = viewBeaconSchema.safeParse(req.body ?? {});
    if (!beacon.success) {
      res.status(400).json({ error: describeValidationError(beacon.error).message });
      return;
    }
    counter.count(req, beacon.data).then(
      () => res.status(204).end(),
      () => res.status(204).end(),
    );
  };
}
