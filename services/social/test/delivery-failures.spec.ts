import '../../../libs/federation/src/temporal.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Patterns,
  SocialErrors,
  type DeliveryFailureListResult,
  type DeliveryFailureView,
} from '@blog/contracts';
import { DeliveryFailuresService } from '../src/deliveries/delivery-failures.service.js';
import { eventually } from './support/gateway-stand-in.js';
import { startSocialStack, type SocialReplica, type SocialStack } from './support/social-stack.js';

/**
 * Deliveries given up, kept per remote server for the owner: through the real queue (a loopback
 * inbox answering 410, then taking deliveries again) and through the runtime's give-up hook.
 */
describe('delivery failures (real social service and PostgreSQL)', () => {
  let stack: SocialStack;
  let social: SocialReplica;
  let inbox: Server;
  let inboxHost: string;
  /** What the loopback server answers deliveries with. */
  let answer = 410;
  const received: string[] = [];

  beforeAll(async () => {
    stack = await startSocialStack();
    inbox = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received.push(`${request.method} ${request.url} ${answer}`);
        response.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => inbox.listen(0, '127.0.0.1', resolve));
    inboxHost = `127.0.0.1:${(inbox.address() as AddressInfo).port}`;
    social = await stack.start({
      SITE_URL: 'http://127.0.0.1:9', // nothing fetches the blog here: only Accepts are sent
      // Tests only: the remote server is on loopback.
      OUTBOUND_ALLOW: '127.0.0.1',
    });
  });

  afterAll(async () => {
    inbox?.closeAllConnections();
    inbox?.close();
    await stack?.stop();
  });

  const failures = async () =>
    (await social.send<DeliveryFailureListResult>(Patterns.social.deliveryFailures)).items;
  const rowOf = async (host: string) => (await failures()).find((item) => item.host === host);

  /** A pending follower on the loopback server, approved: its Accept goes through the queue. */
  let followers = 0;
  const approveFollowerThere = async () => {
    const user = `reader${++followers}`;
    const origin = `http://${inboxHost}`;
    const pending = await social.send<{ id: number }>(Patterns.social.follow, {
      actorUri: `${origin}/users/${user}`,
      handle: `${user}@${inboxHost}`,
      inbox: `${origin}/users/${user}/inbox`,
      sharedInbox: null,
      followActivityId: `${origin}/follows/${user}`,
      requireApproval: true,
    });
    await social.send(Patterns.social.approveFollower, { id: pending.id });
  };

  it('a server answering 410 is kept under its host; a second give-up there adds to its row', async () => {
    await approveFollowerThere();
    const first = await eventually(() => rowOf(inboxHost));
    expect(first).toMatchObject({
      host: inboxHost,
      inbox: `http://${inboxHost}/users/reader1/inbox`,
      reason: 'gone',
      statusCode: 410,
      count: 1,
    });
    expect(first.lastActivityId).toMatch(/^http:\/\/127\.0\.0\.1:9\//);
    expect(first.firstFailedAt).toBe(first.lastFailedAt);

    await approveFollowerThere();
    const second = await eventually(async () => {
      const row = await rowOf(inboxHost);
      return row && row.count === 2 ? row : undefined;
    });
    expect(second).toMatchObject({ inbox: `http://${inboxHost}/users/reader2/inbox`, reason: 'gone' });
    expect(second.lastActivityId).not.toBe(first.lastActivityId);
    expect(second.firstFailedAt).toBe(first.firstFailedAt);
    expect(Date.parse(second.lastFailedAt)).toBeGreaterThan(Date.parse(first.lastFailedAt));
    const rows = await stack.sql.query(`SELECT count(*)::int AS n FROM social.delivery_failures`);
    expect(rows.rows[0].n).toBe(1);
  });

  it('a delivery the server takes again clears its row', async () => {
    answer = 202;
    const before = received.length;
    await approveFollowerThere();
    await eventually(async () => received.slice(before).some((line) => line.endsWith(' 202')));
    await eventually(async () => (await rowOf(inboxHost)) === undefined);
  });

  it('lists servers newest failure first; the same activity reported twice counts once', async () => {
    const runtimeHook = social.app.get(DeliveryFailuresService);
    await runtimeHook.givenUp({
      activityId: 'https://blog.example/post/1#create',
      inbox: 'https://Slow.Example/inbox',
      reason: 'expired',
      statusCode: 503,
      error: 'Service Unavailable',
    });
    await runtimeHook.givenUp({
      activityId: 'https://blog.example/post/2#create',
      inbox: 'https://down.example/inbox',
      reason: 'dropped',
      statusCode: null,
      error: null,
    });
    // The same activity given up at another inbox of that server: one give-up there, the row keeps "dropped".
    await runtimeHook.givenUp({
      activityId: 'https://blog.example/post/2#create',
      inbox: 'https://down.example/users/bo/inbox',
      reason: 'gone',
      statusCode: 410,
      error: 'Gone',
    });

    const items = await failures();
    expect(items.map((item) => item.host)).toEqual(['down.example', 'slow.example']);
    expect(items[0]).toMatchObject<Partial<DeliveryFailureView>>({
      inbox: 'https://down.example/inbox',
      reason: 'dropped',
      statusCode: null,
      error: null,
      count: 1,
    });
    expect(items[1]).toMatchObject<Partial<DeliveryFailureView>>({
      inbox: 'https://Slow.Example/inbox',
      reason: 'expired',
      statusCode: 503,
      error: 'Service Unavailable',
      count: 1,
    });
  });

  it('the owner dismisses a server; dismissing it again removes nothing; a bad host is refused', async () => {
    expect(await social.send(Patterns.social.dismissDeliveryFailure, { host: 'Slow.Example' })).toEqual({
      removed: true,
    });
    expect((await failures()).map((item) => item.host)).toEqual(['down.example']);
    expect(await social.send(Patterns.social.dismissDeliveryFailure, { host: 'slow.example' })).toEqual({
      removed: false,
    });
    const refused = await social.failure(Patterns.social.dismissDeliveryFailure, { host: 'a b/c' });
    expect(refused).toMatchObject({ status: 400, field: 'host', error: SocialErrors.deliveryHost });
  });
});
