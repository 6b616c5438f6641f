import {
  backoffDelay,
  JOB_DEFAULTS,
  type JobHandler,
  type JobQueue,
  type JobQueueOptions,
} from './job-queue.js';

interface Entry<T> {
  id: string;
  data: T;
  attempt: number;
}

/**
 * The embedded mode's queue: jobs live in this process's memory (the periodic re-enqueue
 * from the database brings back whatever a restart dropped). Same contract as BullMQ:
 * one job per id at a time, bounded concurrency, retries with exponential backoff.
 */
export class InProcessJobQueue<T> implements JobQueue<T> {
  readonly kind = 'in-process' as const;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly concurrency: number;
  /** Ids waiting, delayed or running. */
  private readonly known = new Set<string>();
  private readonly waiting: Entry<T>[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private handler?: JobHandler<T>;
  private closed = false;

  constructor(options: JobQueueOptions) {
    this.attempts = options.attempts ?? JOB_DEFAULTS.attempts;
    this.backoffMs = options.backoffMs ?? JOB_DEFAULTS.backoffMs;
    this.concurrency = options.concurrency ?? JOB_DEFAULTS.concurrency;
  }

  async add(id: string, data: T): Promise<void> {
    if (this.closed) throw new Error('queue closed');
    if (this.known.has(id)) return;
    this.known.add(id);
    this.waiting.push({ id, data, attempt: 1 });
    this.pump();
  }

  process(handler: JobHandler<T>): void {
    if (this.handler) throw new Error('process() was already called');
    this.handler = handler;
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.waiting.length = 0;
    await Promise.allSettled([...this.running]);
    this.known.clear();
  }

  private pump(): void {
    const handler = this.handler;
    if (!handler || this.closed) return;
    while (this.running.size < this.concurrency && this.waiting.length > 0) {
      const entry = this.waiting.shift()!;
      const run: Promise<void> = this.runOne(handler, entry).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async runOne(handler: JobHandler<T>, entry: Entry<T>): Promise<void> {
    try {
      await handler({ id: entry.id, data: entry.data, attempt: entry.attempt });
      this.known.delete(entry.id);
    } catch {
      if (this.closed || entry.attempt >= this.attempts) {
        this.known.delete(entry.id);
        return;
      }
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          if (this.closed) return;
          this.waiting.push({ ...entry, attempt: entry.attempt + 1 });
          this.pump();
        },
        backoffDelay(this.backoffMs, entry.attempt),
      );
      timer.unref();
      this.timers.add(timer);
    }
  }
}
