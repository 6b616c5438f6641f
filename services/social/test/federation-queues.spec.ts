import '../../../libs/federation/src/temporal.js';
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Patterns } from '@blog/contracts';
import { freePort } from '@blog/server-kit/testing';
import { FederationRuntime } from '../src/federation/federation-runtime.js';
import { eventually } from './support/gateway-stand-in.js';
import { startSocialStack, type SocialReplica, type SocialStack } from './support/social-stack.js';

const AS = 'https://www.w3.org/ns/activitystreams';
const SERVERS = 5;

/** Requests held open by the loopback servers, by method, until the test lets them go. */
class Held {
  open = { GET: 0, POST: 0 };
  most = { GET: 0, POST: 0 };
  /** `METHOD origin` of every request, in order. */
  asked: string[] = [];
  private waiting: { method: 'GET' | 'POST'; res: ServerResponse }[] = [];
  private released = false;

  take(method: 'GET' | 'POST', origin: string, res: ServerResponse) {
    this.asked.push(`${method} ${origin}`);
    if (this.released) return void answer(method, res);
    this.most[method] = Math.max(this.most[method], ++this.open[method]);
    res.on('close', () => this.open[method]--);
    this.waiting.push({ method, res });
  }

  release() {
    this.released = true;
    for (const { method, res } of this.waiting.splice(0)) answer(method, res);
  }
}
/** A delivery is taken; an object fetch finds nothing (the activity is then done with). */
const answer = (method: 'GET' | 'POST', res: ServerResponse) =>
  res.writeHead(method === 'POST' ? 202 : 404).end();

/**
 * The social service runs inbox work and deliveries on two queues of their own, each with its
 * configured workers (FEDERATION_INBOX_WORKERS=2, FEDERATION_OUTBOX_WORKERS=3 here): loopback
 * servers that hold every request open show how many of each run at once, and that inbox work
 * goes on while every delivery worker waits on a slow server.
 */
describe('the federation queues in the social service', () => {
  let stack: SocialStack;
  let social: SocialReplica;
  let site: string;
  const held = new Held();
  const servers: Server[] = [];
  const origins: string[] = [];

  beforeAll(async () => {
    stack = await startSocialStack();
    for (let i = 0; i < SERVERS; i++) {
      const server = createServer((req, res) => {
        req.resume();
        held.take(req.method === 'POST' ? 'POST' : 'GET', origins[i]!, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
    const [postsPort, mediaPort, sitePort] = await Promise.all([freePort(), freePort(), freePort()]);
    site = `http://127.0.0.1:${sitePort}`; // nothing fetches the blog here
    social = await stack.start({
      SITE_URL: site,
      POSTS_PORT: String(postsPort),
      MEDIA_PORT: String(mediaPort),
      // Tests only: the remote servers are on loopback.
      OUTBOUND_ALLOW: '127.0.0.1',
      FEDERATION_POLL_MS: '600000',
      FEDERATION_INBOX_WORKERS: '2',
      FEDERATION_OUTBOX_WORKERS: '3',
    });
  });

  afterAll(async () => {
    held.release();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await stack?.stop();
  });

  it('has an inbox queue and an outbox queue with the configured workers', () => {
    const { inbox, outbox } = social.app.get(FederationRuntime).queues;
    expect([inbox.name, inbox.workers, inbox.perHost]).toEqual(['inbox', 2, 1]);
    expect([outbox.name, outbox.workers, outbox.perHost]).toEqual(['outbox', 3, 1]);
  });

  it('sends 3 deliveries at once, and handles 2 inbox activities at once while they wait', async () => {
    // An approved follower on each server: its Accept goes out through the outbox queue.
    for (const [i, origin] of origins.entries()) {
      const pending = await social.send<{ id: number }>(Patterns.social.follow, {
        actorUri: `${origin}/users/u${i}`,
        handle: `u${i}@${new URL(origin).host}`,
        inbox: `${origin}/users/u${i}/inbox`,
        sharedInbox: null,
        followActivityId: `${origin}/follows/${i}`,
        requireApproval: true,
      });
      await social.send(Patterns.social.approveFollower, { id: pending.id });
    }
    await eventually(async () => held.open.POST === 3);

    // Every delivery worker is held. Inbox work has its own queue: a Create from each server,
    // queued as Fedify queues a verified one, whose object the handler fetches.
    const { inbox } = social.app.get(FederationRuntime).queues;
    for (const [i, origin] of origins.entries())
      await inbox.enqueue({
        type: 'inbox',
        id: randomUUID(),
        baseUrl: site,
        activity: {
          '@context': AS,
          id: `${origin}/activities/${i}`,
          type: 'Create',
          actor: `${origin}/users/u${i}`,
          object: `${origin}/notes/${i}`,
        },
        identifier: null,
        attempt: 0,
        started: new Date().toISOString(),
        traceContext: {},
      });
    await eventually(async () => held.open.GET === 2);

    const { rows } = await stack.sql.query(
      `SELECT queue, count(*)::int AS queued, count(*) FILTER (WHERE leased_until > now())::int AS running,
              count(DISTINCT host)::int AS hosts
       FROM social.fedify_mq GROUP BY queue ORDER BY queue`,
    );
    expect(rows).toEqual([
      { queue: 'inbox', queued: SERVERS, running: 2, hosts: SERVERS },
      { queue: 'outbox', queued: SERVERS, running: 3, hosts: SERVERS },
    ]);

    held.release();
    await eventually(
      async () =>
        origins.every((o) => held.asked.includes(`POST ${o}`) && held.asked.includes(`GET ${o}`)) &&
        (await stack.sql.query(`SELECT 1 FROM social.fedify_mq WHERE run_at <= now()`)).rowCount === 0,
    );
    // However long each wait took on this machine, never more at once than the workers.
    expect(held.most).toEqual({ GET: 2, POST: 3 });
  });
});
