import type { ConnectionOptions, Queue, Worker } from 'bullmq';
import { createRequire } from 'node:module';
import { JOB_DEFAULTS, type JobHandler, type JobQueue, type JobQueueOptions } from './job-queue.js';

// BullMQ and ioredis (6 MB of heap) load only where a queue runs on Redis: the in-process
// runner (no REDIS_URL, as `npm start` runs) never needs them.
const require = createRequire(import.meta.url);
const bullmq = () => require('bullmq') as typeof import('bullmq');

function connection(redisUrl: string, forWorker: boolean): ConnectionOptions {
  const url = new URL(redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    // A producer fails fast while Redis is down (the database re-enqueue covers it);
    // the worker waits and reconnects by itself.
    ...(forWorker ? { maxRetriesPerRequest: null } : { enableOfflineQueue: false, maxRetriesPerRequest: 1 }),
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
  };
}

/**
 * BullMQ on Redis: `jobId` = the caller's id, so a job waiting, delayed or running is never
 * queued twice; finished jobs are removed, so the same id can be queued again later.
 * A worker killed mid-job loses its lock and the job runs again elsewhere.
 */
export class BullMqJobQueue<T> implements JobQueue<T> {
  readonly kind = 'bullmq' as const;
  private readonly queue: Queue;
  private worker?: Worker;
  private readonly options: Required<JobQueueOptions>;

  constructor(
    private readonly redisUrl: string,
    options: JobQueueOptions,
  ) {
    this.options = { ...JOB_DEFAULTS, ...options } as Required<JobQueueOptions>;
    this.queue = new (bullmq().Queue)(options.name, {
      connection: connection(redisUrl, false),
      defaultJobOptions: {
        attempts: this.options.attempts,
        backoff: { type: 'exponential', delay: this.options.backoffMs },
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
    this.queue.on('error', () => undefined); // connection errors surface as failed add() calls
  }

  async add(id: string, data: T): Promise<void> {
    await this.queue.add(this.options.name, data, { jobId: id });
  }

  process(handler: JobHandler<T>): void {
    if (this.worker) throw new Error('process() was already called');
    this.worker = new (bullmq().Worker)(
      this.options.name,
      async (job) => handler({ id: job.id!, data: job.data as T, attempt: job.attemptsMade + 1 }),
      {
        connection: connection(this.redisUrl, true),
        concurrency: this.options.concurrency,
        lockDuration: this.options.lockDurationMs,
        stalledInterval: Math.max(1000, Math.floor(this.options.lockDurationMs / 2)),
        maxStalledCount: this.options.attempts,
      },
    );
    this.worker.on('error', () => undefined); // it reconnects by itself
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.worker?.close(), this.queue.close()]);
  }
}
