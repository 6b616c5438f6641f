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
  VIEWS_PER_ADDRESS_PER_MINUTE,
  VISITOR_KEY_HEX,
  VISITORS_PER_ADDRESS_PER_DAY,
} from '@blog/contracts';
import type { NextFunction, Request, Response } from 'express';
import { isbot } from 'isbot';
import { hash, randomUUID } from 'node:crypto';
import { OptionalAuth } from '../common/optional-auth.js';
import { siteUrl } from '../common/site-url.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { SiteConfigSource } from '../site/site-config-source.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { AddressLimits } from './address-limits.js';
import { WaitingQueue } from './waiting-queue.js';

/** The app's own screens are not pages a reader reads. */
const PRIVATE_PATHS = /^\/(admin|login|register|account)(\/|$)/;
/** Views waiting in memory at most (a few hundred bytes each); past this a new view is dropped and counted as such. */
export const MAX_WAITING = 100_000;
/** Visitor keys are made for at most this many views per hand-over... */
const BATCH_MAX = 5_000;
/**
 * ...and one hand-over carries no more than this, serialized: well below NATS's 1 MB payload
 * limit (a bigger message is refused, so it would be retried forever), whatever the paths.
 */
export const BATCH_MAX_BYTES = 256 * 1024;
/** Addresses the flood limits track in a UTC day (about 100 bytes each). */
const MAX_ADDRESSES = 200_000;
/** Browser strings (of 512 characters at most) whose digest is remembered; past it the memory starts over. */
const BROWSER_DIGESTS = 1024;

/** A view before its visitor key is made: held in memory only, never written or logged. */
interface PendingView extends Omit<RecordedView, 'visitor'> {
  address: string;
  /** A digest of the browser string, made on arrival: a header of any length costs 32 bytes here. */
  browser: string;
}

/** Beacons that passed the other checks but were not counted, by reason, since the start. */
export interface DroppedViews {
  /** Over VIEWS_PER_ADDRESS_PER_MINUTE from one address. */
  rate: number;
  /** A new browser from an address that already had VISITORS_PER_ADDRESS_PER_DAY today. */
  visitors: number;
  /** The waiting queue was full (the posts service away for long). */
  queueFull: number;
}

/** The clock, replaceable in tests (the day's salt changes at midnight UTC). */
export const VIEW_CLOCK = Symbol('VIEW_CLOCK');
export type Clock = () => Date;

/**
 * Counts page views without cookies or personal data. A beacon is dropped for a known bot
 * (isbot), for DNT: 1 or Sec-GPC: 1, for a signed-in admin and for a path that is neither a
 * page nor a post; and, against flooding, past VIEWS_PER_ADDRESS_PER_MINUTE beacons or
 * VISITORS_PER_ADDRESS_PER_DAY browsers from one address, or when the waiting queue is full
 * (each counted in dropped() and logged once a minute). A counted view keeps its path, the
 * referrer's host, a device class, the proxy's country header and a visitor key: the first
 * VISITOR_KEY_HEX hex digits of sha256 of the day's salt (from the posts service, which keeps it in memory or Redis until the day is over),
 * the site, the address and a digest of the browser. Views are handed to the posts service at
 * most once per VIEW_FLUSH_MS, in batches below BATCH_MAX_BYTES; a batch it cannot take stays
 * (same id, so it is never counted twice) and goes again on the next tick.
 */
@Injectable()
export class ViewCounter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ViewCounter.name);
  private readonly waiting = new WaitingQueue<PendingView>(MAX_WAITING);
  private retry: ViewBatch | null = null;
  /** The day's salt, and the start of each visitor key made with it (salt and site). */
  private salt: { day: string; keyPrefix: string } | null = null;
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private readonly limits = new AddressLimits({
    perMinute: VIEWS_PER_ADDRESS_PER_MINUTE,
    visitorsPerDay: VISITORS_PER_ADDRESS_PER_DAY,
    maxAddresses: MAX_ADDRESSES,
  });
  private readonly browserDigests = new Map<string, string>();
  private readonly droppedViews: DroppedViews = { rate: 0, visitors: 0, queueFull: 0 };
  private lastReported: DroppedViews = { rate: 0, visitors: 0, queueFull: 0 };
  private lastReportAt = 0;

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
    this.reportDropped(true);
  }

  /** Beacons not counted for flooding or a full queue, since the start. */
  dropped(): DroppedViews {
    return { ...this.droppedViews };
  }

  /** How many views wait to be handed over (the retried batch included). */
  waitingCount(): number {
    return this.waiting.length + (this.retry?.views.length ?? 0);
  }

  /** Whether the beacon was counted (the answer is 204 either way). */
  async count(req: Request, beacon: ViewBeacon): Promise<boolean> {
    if (req.header('dnt') === '1' || req.header('sec-gpc') === '1') return false;
    const userAgent = req.header('user-agent') ?? '';
    if (!userAgent || isbot(userAgent)) return false;
    if (await this.auth.isAdmin(req)) return false;
    const path = beacon.path.split(/[?#]/)[0]!;
    if (PRIVATE_PATHS.test(path)) return false;
    const site = await this.site.get();
    const base = siteUrl(this.config, req);
    const route = routePage(site, base, path);
    if (!route || (route.kind !== 'page' && route.kind !== 'post')) return false;
    const now = this.clock();
    const address = req.ip ?? '';
    const browser = this.browserDigest(userAgent);
    const verdict = this.limits.admit(address, browser, now);
    if (verdict !== 'counted') return this.drop(verdict);
    const queued = this.waiting.push({
      at: now.toISOString(),
      path: route.kind === 'post' ? route.path : path.replace(/\/+$/, '') || '/',
      kind: route.kind,
      ...(route.kind === 'post' ? { slug: route.slug } : {}),
      referrerHost: referrerHost(beacon.referrer, base),
      device: deviceClassOf(userAgent),
      country: countryOf(req.header('cf-ipcountry')),
      address,
      browser,
    });
    return queued || this.drop('queueFull');
  }

  /**
   * A digest of the browser string, of the recent strings' remembered (most beacons come from
   * a few hundred browsers): a Map lookup instead of a sha256 on most beacons.
   */
  private browserDigest(userAgent: string): string {
    let digest = this.browserDigests.get(userAgent);
    if (digest === undefined) {
      digest = hash('sha256', userAgent).slice(0, 32);
      if (userAgent.length <= 512) {
        if (this.browserDigests.size >= BROWSER_DIGESTS) this.browserDigests.clear();
        this.browserDigests.set(userAgent, digest);
      }
    }
    return digest;
  }

  /** Hands the waiting views over; one flush at a time. */
  flush(): Promise<void> {
    this.flushing ??= this.send().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private drop(reason: keyof DroppedViews): false {
    this.droppedViews[reason]++;
    this.reportDropped(false);
    return false;
  }

  /** One log line a minute at most while beacons are being dropped (never an address). */
  private reportDropped(now: boolean): void {
    const at = Date.now();
    if (!now && at - this.lastReportAt < 60_000) return;
    const since = {
      rate: this.droppedViews.rate - this.lastReported.rate,
      visitors: this.droppedViews.visitors - this.lastReported.visitors,
      queueFull: this.droppedViews.queueFull - this.lastReported.queueFull,
    };
    if (!since.rate && !since.visitors && !since.queueFull) return;
    this.lastReportAt = at;
    this.lastReported = this.dropped();
    this.logger.warn(
      `views not counted: ${since.rate} over the per-address rate, ${since.visitors} past the per-address visitors, ` +
        `${since.queueFull} with the waiting queue full (since the start: ${JSON.stringify(this.droppedViews)})`,
    );
  }

  private async send(): Promise<void> {
    try {
      // The views waiting now go batch after batch (one batch a tick would cap the rate at one
      // BATCH_MAX_BYTES a second); those arriving meanwhile wait for the next tick, so a steady
      // stream goes over in a few full batches a second, not in one small batch per round trip
      // (each batch is a transaction in the posts service).
      let due = this.waiting.length;
      for (;;) {
        let batch = this.retry;
        if (!batch) {
          batch = due > 0 ? await this.nextBatch() : null;
          if (!batch) return;
          due -= batch.views.length;
          this.retry = batch;
        }
        await this.services.call('posts', Patterns.posts.recordViews, batch, 10_000);
        this.retry = null;
      }
    } catch (error) {
      this.logger.warn(
        `views not handed over yet (${this.retry?.views.length ?? 0} wait): ${(error as Error).message}`,
      );
    }
  }

  private async nextBatch(): Promise<ViewBatch | null> {
    if (!this.waiting.length) return null;
    // Keys are made only for the views that fit (not for all BATCH_MAX, most of them again next batch).
    const views: RecordedView[] = [];
    const size = new BatchSize(BATCH_MAX_BYTES);
    for (const view of this.waiting.peek(BATCH_MAX)) {
      const { address, browser, ...rest } = view;
      const recorded = { ...rest, visitor: await this.visitorKey(view.at.slice(0, 10), address, browser) };
      if (!size.add(recorded)) break;
      views.push(recorded);
    }
    // Only once every key is made: a failure above leaves the views waiting.
    this.waiting.remove(views.length);
    return { id: randomUUID(), views };
  }

  private async visitorKey(day: string, address: string, browser: string): Promise<string> {
    if (this.salt?.day !== day) {
      const salt = await this.services.call('posts', Patterns.posts.viewSalt, { day });
      this.salt = { day, keyPrefix: `${salt}\n${this.config.SITE_URL ?? ''}\n` };
    }
    return hash('sha256', `${this.salt.keyPrefix}${address}\n${browser}`).slice(0, VISITOR_KEY_HEX);
  }
}

/** Room for the batch's id and the transport's envelope around its views. */
const ENVELOPE_BYTES = 1024;

/** A batch's serialized size as views are added: at most `maxBytes`, but always room for one view. */
export class BatchSize {
  private bytes = ENVELOPE_BYTES;
  private views = 0;

  constructor(private readonly maxBytes: number) {}

  /** Counts `view` in if it fits (its JSON and the comma after it); false, and not counted, if not. */
  add(view: RecordedView): boolean {
    const bytes = this.bytes + Buffer.byteLength(JSON.stringify(view)) + 1;
    if (bytes > this.maxBytes && this.views > 0) return false;
    this.bytes = bytes;
    this.views++;
    return true;
  }
}

/**
 * How many of `views`, from the first, fit in one batch of at most `maxBytes` serialized (at
 * least one: a single view is far smaller than any limit, its fields being bounded).
 */
export function viewsThatFit(views: readonly RecordedView[], maxBytes: number): number {
  const size = new BatchSize(maxBytes);
  let n = 0;
  while (n < views.length && size.add(views[n]!)) n++;
  return n;
}

/** The site's host for the last base address seen (the same on every beacon once SITE_URL is set). */
let siteHost = { base: '', host: '' };

/** The referrer's host, unless it is this site itself or not a web address. */
function referrerHost(referrer: string, base: string): string | null {
  if (!referrer) return null;
  try {
    const url = new URL(referrer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    const host = url.hostname.toLowerCase().slice(0, 255);
    if (siteHost.base !== base) siteHost = { base, host: new URL(base).hostname.toLowerCase() };
    return host === siteHost.host ? null : host;
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
 * not (over a flood limit too), so a reader or a script learns nothing from it.
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
