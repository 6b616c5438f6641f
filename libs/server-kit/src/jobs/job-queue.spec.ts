import { randomUUID } from 'node:crypto';
import { BullMqJobQueue } from './bullmq-queue.js';
import { createJobQueue, InProcessJobQueue, type Job, type JobQueue, type JobQueueOptions } from './index.js';
import { startTestRedis, type TestRedis } from '../testing/redis.js';

let redis: TestRedis | undefined;

beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.close();
});

const waitFor = async (check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const kinds: [string, (options: JobQueueOptions) => JobQueue<{ n: number }>][] = [
  ['in-process', (options) => new InProcessJobQueue(options)],
  ['bullmq', (options) => new BullMqJobQueue(redis!.url, options)],
];

describe.each(kinds)('job queue: %s', (_kind, make) => {
  let queue: JobQueue<{ n: number }>;
  const open = (options: Partial<JobQueueOptions> = {}) => {
    queue = make({ name: `test-${randomUUID()}`, backoffMs: 50, ...options });
    return queue;
  };
  afterEach(async () => {
    await queue?.close();
  });

  it('runs each job with its data', async () => {
    const seen: Job<{ n: number }>[] = [];
    open().process(async (job) => {
      seen.push(job);
    });
    await queue.add('a', { n: 1 });
    await queue.add('b', { n: 2 });
    await waitFor(() => seen.length === 2);
    expect(seen.map((j) => [j.id, j.data.n, j.attempt]).sort()).toEqual([
      ['a', 1, 1],
      ['b', 2, 1],
    ]);
  });

  it('never queues a job twice under one id while it waits or runs', async () => {
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    open().process(async () => {
      runs++;
      await gate;
    });
    await queue.add('same', { n: 1 });
    await waitFor(() => runs === 1);
    await queue.add('same', { n: 2 });
    await queue.add('same', { n: 3 });
    release();
    await new Promise((r) => setTimeout(r, 300));
    expect(runs).toBe(1);
    // Finished: the same id may be queued again (a re-enqueue of an item still pending).
    await queue.add('same', { n: 4 });
    await waitFor(() => runs === 2);
  });

  it('retries a failing job with exponential backoff, up to the attempts', async () => {
    const times: number[] = [];
    open({ attempts: 3 }).process(async (job) => {
      times.push(Date.now());
      if (job.attempt < 3) throw new Error('transient');
    });
    await queue.add('flaky', { n: 1 });
    await waitFor(() => times.length === 3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(45);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(95);
    await new Promise((r) => setTimeout(r, 300));
    expect(times).toHaveLength(3);
  });

  it('gives up after the last attempt', async () => {
    let runs = 0;
    open({ attempts: 2 }).process(async () => {
      runs++;
      throw new Error('always');
    });
    await queue.add('doomed', { n: 1 });
    await waitFor(() => runs === 2);
    await new Promise((r) => setTimeout(r, 400));
    expect(runs).toBe(2);
  });

  it('runs at most `concurrency` jobs at once', async () => {
    let active = 0;
    let peak = 0;
    let done = 0;
    open({ concurrency: 2 }).process(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 60));
      active--;
      done++;
    });
    for (let i = 0; i < 6; i++) await queue.add(`c${i}`, { n: i });
    await waitFor(() => done === 6);
    expect(peak).toBe(2);
  });
});

describe('createJobQueue', () => {
  it('picks BullMQ when REDIS_URL is set, else the in-process runner', async () => {
    const a = createJobQueue({ name: 'x' }, {});
    const b = createJobQueue({ name: `x-${randomUUID()}` }, { REDIS_URL: redis!.url });
    expect([a.kind, b.kind]).toEqual(['in-process', 'bullmq']);
    await Promise.all([a.close(), b.close()]);
  });

  it('BullMQ: add fails fast while Redis is down and works again once it is back', async () => {
    const queue = new BullMqJobQueue<{ n: number }>(redis!.url, {
      name: `down-${randomUUID()}`,
      backoffMs: 50,
    });
    const seen: string[] = [];
    queue.process(async (job) => {
      seen.push(job.id);
    });
    try {
      await queue.add('before', { n: 0 });
      await waitFor(() => seen.includes('before'));
      await redis!.stop();
      const started = Date.now();
      await expect(queue.add('while-down', { n: 1 })).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5000);
      await redis!.start();
      // The producer reconnects by itself.
      const until = Date.now() + 10_000;
      for (;;) {
        try {
          await queue.add('after', { n: 2 });
          break;
        } catch (error) {
          if (Date.now() > until) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await waitFor(() => seen.includes('after'));
    } finally {
      await queue.close();
    }
  });

  it('BullMQ: a job whose worker dies mid-run runs again on another worker', async () => {
    const name = `stall-${randomUUID()}`;
    const options = { name, backoffMs: 50, lockDurationMs: 1000 };
    const dying = new BullMqJobQueue<{ n: number }>(redis!.url, options);
    let started = false;
    dying.process(() => {
      started = true;
      return new Promise(() => undefined); // hangs until the "crash"
    });
    await dying.add('job', { n: 1 });
    await waitFor(() => started);
    // A crash: the worker stops renewing its lock without finishing the job.
    const worker = (dying as unknown as { worker: { close(force: boolean): Promise<void> } }).worker;
    void worker.close(true);
    const survivor = new BullMqJobQueue<{ n: number }>(redis!.url, options);
    const seen: Job<{ n: number }>[] = [];
    survivor.process(async (job) => {
      seen.push(job);
    });
    try {
      // 3 s on an idle machine (the stalled-job check); 10 times that, within the test's timeout.
      await waitFor(() => seen.length === 1, 30_000);
      expect(seen[0]!.id).toBe('job');
    } finally {
      await Promise.all([survivor.close(), dying.close()]);
    }
  }, 60_000);
});
