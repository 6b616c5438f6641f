/** One unit of background work. `id` is the job's identity: a job is never queued twice under one id. */
export interface Job<T> {
  id: string;
  data: T;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
}

/**
 * The work itself, the same code for both implementations. Throwing asks for a retry
 * (with exponential backoff, up to `attempts` runs); a handler reports its own
 * permanent failures instead of throwing.
 */
export type JobHandler<T> = (job: Job<T>) => Promise<void>;

export interface JobQueueOptions {
  /** The queue's name (one queue per kind of work). */
  name: string;
  /** Runs per job, the first included. */
  attempts?: number;
  /** The first retry waits this long; each next one twice as long. */
  backoffMs?: number;
  /** Jobs run at the same time by this process's worker. */
  concurrency?: number;
  /** BullMQ only: how long a job may go without a lock renewal before another worker takes it over. */
  lockDurationMs?: number;
}

export const JOB_DEFAULTS = { attempts: 5, backoffMs: 1000, concurrency: 2, lockDurationMs: 30_000 };

/**
 * A queue of jobs with its worker. The database stays the truth: a queue only speeds work
 * up, so `add` may fail (Redis down) and the caller relies on its periodic re-enqueue.
 */
export interface JobQueue<T> {
  readonly kind: 'bullmq' | 'in-process';
  /** Queues a job; nothing happens when a job with this id is already waiting, delayed or running. */
  add(id: string, data: T): Promise<void>;
  /** Starts this process's worker. Call once. */
  process(handler: JobHandler<T>): void;
  /** Waits for nothing new: stops taking jobs and waits for the running ones. */
  close(): Promise<void>;
}

/** Exponential backoff: the wait before run `attempt + 1`. */
export function backoffDelay(backoffMs: number, attempt: number): number {
  return backoffMs * 2 ** Math.max(0, attempt - 1);
}
