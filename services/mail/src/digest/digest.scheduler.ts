import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { errorText, retryDelayMs } from '../common/retry.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { DigestCalendar } from './digest-calendar.js';
import { DigestService } from './digest.service.js';

export const DIGEST_QUEUE = 'mail-digest';
export const DIGEST_SCHEDULER_ID = 'weekly-digest';
const DAY_MS = 24 * 3600 * 1000;
/** A scheduled run that fails (the posts service down, say) is tried this many times. */
const SCHEDULED_ATTEMPTS = 5;

/**
 * Fires the weekly digest at DIGEST_CRON in SITE_TIMEZONE: a BullMQ job scheduler when
 * REDIS_URL is set (one replica runs each occurrence; a late worker still runs it), an
 * in-process timer otherwise (each replica fires; the digest's claims keep it once per
 * subscriber). Either way the run is named by its occurrence, so a delay does not change its week.
 */
@Injectable()
export class DigestScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DigestScheduler.name);
  private timer?: NodeJS.Timeout;
  private retries = new Set<NodeJS.Timeout>();
  private queue?: Queue;
  private worker?: Worker;
  private connections: Redis[] = [];
  private stopped = false;

  constructor(
    private readonly digest: DigestService,
    private readonly calendar: DigestCalendar,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
  ) {}

  onApplicationBootstrap() {
    if (this.config.REDIS_URL) {
      this.startQueue(this.config.REDIS_URL).catch((error: unknown) =>
        this.logger.error(`digest scheduling with BullMQ failed: ${errorText(error)}`),
      );
    } else {
      this.arm(new Date());
    }
  }

  async onModuleDestroy() {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const timer of this.retries) clearTimeout(timer);
    const closing = Promise.allSettled([this.worker?.close(), this.queue?.close()]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
    clearTimeout(timer);
    for (const connection of this.connections) connection.disconnect();
  }

  // ---- in-process timer ----------------------------------------------------------------

  /** Waits for the first occurrence after `after` (re-arming daily: timers cannot wait a week reliably). */
  private arm(after: Date) {
    if (this.stopped) return;
    const next = this.calendar.nextAfter(after);
    const wait = Math.min(Math.max(0, next.getTime() - Date.now()), DAY_MS);
    this.timer = setTimeout(() => {
      if (Date.now() < next.getTime()) return this.arm(after);
      this.fire(next, 1);
      this.arm(next);
    }, wait);
    this.timer.unref();
  }

  private fire(occurrence: Date, attempt: number) {
    this.digest.run('schedule', occurrence).catch((error: unknown) => {
      this.logger.error(
        `scheduled digest ${occurrence.toISOString()} failed (try ${attempt}): ${errorText(error)}`,
      );
      if (attempt >= SCHEDULED_ATTEMPTS || this.stopped) return;
      const retry = setTimeout(
        () => {
          this.retries.delete(retry);
          this.fire(occurrence, attempt + 1);
        },
        retryDelayMs(this.config, attempt),
      );
      retry.unref();
      this.retries.add(retry);
    });
  }

  // ---- BullMQ ----------------------------------------------------------------------------

  private connect(RedisClient: typeof Redis, url: string): Redis {
    const connection = new RedisClient(url, { maxRetriesPerRequest: null });
    // ioredis reconnects by itself; one line per minute is enough while Redis is away.
    let lastLogged = 0;
    connection.on('error', (error) => {
      if (Date.now() - lastLogged < 60_000) return;
      lastLogged = Date.now();
      this.logger.warn(
        `redis: ${errorText(error)} (the weekly digest waits for it; POST /api/admin/digest still works)`,
      );
    });
    this.connections.push(connection);
    return connection;
  }

  private async startQueue(url: string) {
    // BullMQ and ioredis (6 MB of heap) load only where the digest runs on Redis.
    const [{ Queue, Worker }, { Redis }] = await Promise.all([import('bullmq'), import('ioredis')]);
    if (this.stopped) return;
    const prefix = this.config.REDIS_PREFIX ? { prefix: this.config.REDIS_PREFIX } : {};
    this.queue = new Queue(DIGEST_QUEUE, { connection: this.connect(Redis, url), ...prefix });
    this.worker = new Worker(DIGEST_QUEUE, (job: Job) => this.process(job), {
      connection: this.connect(Redis, url),
      concurrency: 1,
      ...prefix,
    });
    this.worker.on('failed', (job, error) =>
      this.logger.error(`scheduled digest job ${job?.id ?? '?'} failed: ${errorText(error)}`),
    );
    await this.queue.upsertJobScheduler(
      DIGEST_SCHEDULER_ID,
      { pattern: this.config.DIGEST_CRON, tz: this.config.SITE_TIMEZONE },
      {
        name: 'digest',
        opts: {
          attempts: SCHEDULED_ATTEMPTS,
          backoff: { type: 'exponential', delay: this.config.MAIL_RETRY_INTERVAL_MS },
          removeOnComplete: 50,
          removeOnFail: 50,
        },
      },
    );
    this.logger.log(
      `weekly digest scheduled with BullMQ: "${this.config.DIGEST_CRON}" ${this.config.SITE_TIMEZONE}`,
    );
  }

  private process(job: Job) {
    const occurrence = new Date(job.opts.prevMillis ?? Date.now());
    return this.digest.run('schedule', occurrence);
  }
}
