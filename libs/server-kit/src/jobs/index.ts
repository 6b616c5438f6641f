import { BullMqJobQueue } from './bullmq-queue.js';
import { InProcessJobQueue } from './in-process-queue.js';
import type { JobQueue, JobQueueOptions } from './job-queue.js';

export * from './job-queue.js';
export { InProcessJobQueue } from './in-process-queue.js';
export { BullMqJobQueue } from './bullmq-queue.js';

/** BullMQ when REDIS_URL is set, else the in-process runner: the same handlers run on both. */
export function createJobQueue<T>(options: JobQueueOptions, env: { REDIS_URL?: string }): JobQueue<T> {
  return env.REDIS_URL ? new BullMqJobQueue<T>(env.REDIS_URL, options) : new InProcessJobQueue<T>(options);
}
