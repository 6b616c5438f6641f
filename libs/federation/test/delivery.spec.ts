import '../src/temporal.js';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InProcessMessageQueue, type MessageQueue } from '@fedify/fedify';
import type { DeliveryGivenUp } from '../src/index.js';
import { article, startBlog, waitUntil, type BlogInstance } from './support/rig.js';

/** Inboxes on 127.0.0.1 that answer each POST with `status(url)`; every request's URL goes to `hits`. */
async function startInboxes(hits: string[], status: (url: string) => number) {
  const inboxes = createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    res.statusCode = status(req.url ?? '');
    res.end();
  });
  inboxes.listen(0, '127.0.0.1');
  await once(inboxes, 'listening');
  return { inboxes, base: `http://127.0.0.1:${(inboxes.address() as AddressInfo).port}` };
}

/** An accepted follower whose actor and inbox live under `${base}/${name}`. */
function followerAt(base: string, name: string) {
  return {
    actorUri: `${base}/${name}/actor`,
    handle: `@${name}@127.0.0.1`,
    name,
    url: null,
    inbox: `${base}/${name}/inbox`,
    sharedInbox: null,
    iconUrl: null,
    followActivityId: `${base}/${name}/follow`,
    status: 'accepted' as const,
  };
}

/** Deliveries that fail: a gone inbox is given up at once, a failing one after the retry period. */
describe('delivery give-up reports', () => {
  let a: BlogInstance;
  let inboxes: Server;
  let base = '';
  const reports: DeliveryGivenUp[] = [];
  const hits: string[] = [];

  beforeAll(async () => {
    ({ inboxes, base } = await startInboxes(hits, (url) => (url.startsWith('/gone') ? 410 : 500)));
    // A zero-hour retry period: the first failure is already past it.
    a = await startBlog({
      queue: new InProcessMessageQueue(),
      retryHours: 0,
      onDeliveryGivenUp: (r) => void reports.push(r),
    });
    for (const name of ['gone', 'broken'])
      a.ports.followerRows.set(`${base}/${name}/actor`, followerAt(base, name));
  });
  afterAll(async () => {
    await a?.close();
    inboxes?.close();
  });

  it('reports each inbox once, with its reason, and does not try again', async () => {
    const post = article(a.origin, 4, 'Frost');
    a.ports.posts.set(4, post);
    await a.blog.publish('create', post);
    await waitUntil(() => reports.length === 2);
    const byInbox = Object.fromEntries(reports.map((r) => [r.inbox, r]));
    expect(byInbox[`${base}/gone/inbox`]).toMatchObject({
      activityId: `${a.origin}/post/4#create`,
      reason: 'gone',
      statusCode: 410,
    });
    expect(byInbox[`${base}/broken/inbox`]).toMatchObject({
      activityId: `${a.origin}/post/4#create`,
      reason: 'expired',
      statusCode: 500,
    });
    // Fedify may knock twice (one signature spec, then the other); nothing comes after the report.
    const seen = hits.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hits.length).toBe(seen);
    expect([...new Set(hits)].sort()).toEqual(['/broken/inbox', '/gone/inbox']);
    expect(reports).toHaveLength(2);
  });
});

/**
 * A delivery the circuit breaker held past its retention (7 days) is dropped without a try, and
 * Fedify tells that drop twice: to onActivityDrop and to the permanent-failure handler.
 */
describe('a held delivery dropped by the circuit breaker', () => {
  let blog: BlogInstance;
  let inboxes: Server;
  let base = '';
  const reports: DeliveryGivenUp[] = [];
  const hits: string[] = [];

  beforeAll(async () => {
    ({ inboxes, base } = await startInboxes(hits, () => 202));
    // Every delivery comes back from the queue as one the circuit has held for 8 days.
    const inner = new InProcessMessageQueue();
    const heldTooLong = (message: unknown) =>
      (message as { type?: string }).type === 'outbox'
        ? {
            ...(message as object),
            circuitHeld: true,
            circuitHeldSince: Temporal.Now.instant()
              .subtract({ hours: 8 * 24 })
              .toString(),
          }
        : message;
    const queue: MessageQueue = {
      enqueue: (message, options) => inner.enqueue(heldTooLong(message), options),
      listen: (handler, options) => inner.listen(handler, options),
    };
    blog = await startBlog({ queue, onDeliveryGivenUp: (r) => void reports.push(r) });
    blog.ports.followerRows.set(`${base}/held/actor`, followerAt(base, 'held'));
  });
  afterAll(async () => {
    await blog?.close();
    inboxes?.close();
  });

  it('is reported once, as dropped, and never sent', async () => {
    const post = article(blog.origin, 5, 'Thaw');
    blog.ports.posts.set(5, post);
    await blog.blog.publish('create', post);
    await waitUntil(() => reports.length > 0);
    // Both of Fedify's calls come in the same queue task: a second report would be here by now.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reports).toEqual([
      {
        activityId: `${blog.origin}/post/5#create`,
        inbox: `${base}/held/inbox`,
        reason: 'dropped',
        statusCode: null,
        error: null,
      },
    ]);
    expect(hits).toEqual([]);
  });
});
