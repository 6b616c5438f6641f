import '../src/temporal.js';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InProcessMessageQueue } from '@fedify/fedify';
import type { DeliveryGivenUp } from '../src/index.js';
import { article, startBlog, waitUntil, type BlogInstance } from './support/rig.js';

/** Deliveries that fail: a gone inbox is given up at once, a failing one after the retry period. */
describe('delivery give-up reports', () => {
  let a: BlogInstance;
  let inboxes: Server;
  let base = '';
  const reports: DeliveryGivenUp[] = [];
  const hits: string[] = [];

  beforeAll(async () => {
    inboxes = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      res.statusCode = req.url?.startsWith('/gone') ? 410 : 500;
      res.end();
    });
    inboxes.listen(0, '127.0.0.1');
    await once(inboxes, 'listening');
    base = `http://127.0.0.1:${(inboxes.address() as AddressInfo).port}`;
    // A zero-hour retry period: the first failure is already past it.
    a = await startBlog({
      queue: new InProcessMessageQueue(),
      retryHours: 0,
      onDeliveryGivenUp: (r) => void reports.push(r),
    });
    for (const name of ['gone', 'broken'])
      a.ports.followerRows.set(`${base}/${name}/actor`, {
        actorUri: `${base}/${name}/actor`,
        handle: `@${name}@127.0.0.1`,
        name,
        url: null,
        inbox: `${base}/${name}/inbox`,
        sharedInbox: null,
        iconUrl: null,
        followActivityId: `${base}/${name}/follow`,
        status: 'accepted',
      });
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
