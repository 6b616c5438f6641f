import {
  excerpt,
  MailText,
  Patterns,
  type DigestRunResult,
  type PostView,
  type SubscriptionLinkResult,
} from '@blog/contracts';
import { startTestRedis, type TestRedis } from '@blog/server-kit/testing';
import { randomBytes } from 'node:crypto';
import { DigestCalendar } from '../src/digest/digest-calendar.js';
import { eventually, sleep, startMailStack, type MailReplica, type MailStack } from './support/mail-stack.js';
import { linkIn, startInProcessSmtp, type InProcessSmtp, type ReceivedMail } from './support/smtp.js';

const SITE = 'https://blog.example';
const ZONE = 'Europe/Berlin';
const CONFIRMED = Array.from({ length: 12 }, (_, i) => `reader${i + 1}@digest.example`);
const PENDING = ['pending1@digest.example', 'pending2@digest.example', 'pending3@digest.example'];
const UNSUBSCRIBED = ['gone1@digest.example', 'gone2@digest.example'];
const DAY = 24 * 3600 * 1000;

/** A daily cron pattern (with seconds) for `at` in `timeZone`. */
function cronAt(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return `${Number(parts.second)} ${Number(parts.minute)} ${Number(parts.hour)} * * *`;
}

const isDigest = (mail: ReceivedMail) => / new posts? this week$/.test(mail.parsed.subject ?? '');
const tokenOf = (mail: ReceivedMail) =>
  new URL(linkIn(mail, `${SITE}/api/unsubscribe?token=`)).searchParams.get('token')!;

/** The same suite with the in-process scheduler and with BullMQ on a real Redis. */
describe.each([
  ['the in-process scheduler (no Redis)', false],
  ['BullMQ on a real Redis', true],
])('weekly digest with %s', (_label, withRedis) => {
  let redis: TestRedis | undefined;
  // In-process: the tests below delay and watch messages, which a Mailpit container cannot.
  let smtp: InProcessSmtp;
  let stack: MailStack;
  let a: MailReplica;
  let b: MailReplica;
  /** The environment of replicas a and b (and of their restarts). */
  let shared: Record<string, string>;
  const prefix = () => `test-${randomBytes(4).toString('hex')}`;
  const redisEnv = () => (redis ? { REDIS_URL: redis.url, REDIS_PREFIX: prefix() } : {});
  /** Only `replica` runs now (a and b are stopped); afterwards it becomes a, and b starts again. */
  const only = async (start: () => Promise<MailReplica>, test: (replica: MailReplica) => Promise<void>) => {
    await Promise.all([a.close(), b.close()]);
    const replica = await start();
    try {
      await test(replica);
    } finally {
      a = replica;
      b = await stack.startMail(shared);
    }
  };

  const digests = () => smtp.received.filter(isDigest);
  const recipients = () =>
    digests()
      .flatMap((mail) => mail.to)
      .sort();
  /** Forgets every digest week (and its e-mails) so the next run starts a fresh week. */
  const resetDigests = async () => {
    await stack.sql.query(`DELETE FROM mail.digest_runs`);
    await stack.sql.query(`DELETE FROM mail.mail_tokens WHERE purpose = 'unsubscribe'`);
    smtp.received.length = 0;
  };
  const run = (replica: MailReplica) => replica.send<DigestRunResult>(Patterns.mail.runDigest);

  beforeAll(async () => {
    if (withRedis) redis = await startTestRedis();
    smtp = await startInProcessSmtp();
    stack = await startMailStack({
      SMTP_URL: smtp.url,
      SITE_URL: SITE,
      SITE_TIMEZONE: ZONE,
      MAIL_RETRY_INTERVAL_MS: '150',
      DIGEST_BATCH_SIZE: '3',
      DIGEST_CONCURRENCY: '2',
    });
    shared = redisEnv();
    a = await stack.startMail(shared);
    b = await stack.startMail(shared);
    const insert = (emails: string[], status: string) =>
      stack.sql.query(
        `INSERT INTO mail.subscribers (email, status, confirmed_at, unsubscribed_at)
         SELECT e, $2::text, CASE WHEN $2::text <> 'pending' THEN now() END,
           CASE WHEN $2::text = 'unsubscribed' THEN now() END
         FROM unnest($1::text[]) AS e`,
        [emails, status],
      );
    await insert(CONFIRMED, 'confirmed');
    await insert(PENDING, 'pending');
    await insert(UNSUBSCRIBED, 'unsubscribed');
  });
  afterAll(async () => {
    await stack?.stop();
    await smtp?.close();
    await redis?.close();
  });

  it('skips a week without posts and sends nothing', async () => {
    expect(await run(a)).toEqual({
      week: new DigestCalendar('0 8 * * 1', ZONE).weekOf(new Date()).toISOString(),
      sent: 0,
      posts: 0,
      skipped: true,
    });
    await sleep(200);
    expect(digests()).toHaveLength(0);
  });

  describe('with posts this week', () => {
    let carburettor: PostView;
    let sourdough: PostView;
    let tank: PostView;

    beforeAll(async () => {
      const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();
      carburettor = await stack.createPost({
        title: 'Rebuilt the carburettor',
        content:
          'The old bike would not idle, so this weekend I took the carburettor apart on the kitchen table, ' +
          'cleaned every jet with a fine wire and replaced the float needle, which was worn flat on one side.',
        category: 'Garage',
        submenu1: 'Motorcycles',
        submenu2: 'General',
        date: daysAgo(1),
      });
      sourdough = await stack.createPost({
        title: 'Sourdough, third try',
        content: 'Better crumb this time.',
        category: 'Food & Bev',
        submenu1: 'Cooking',
        date: daysAgo(2),
        youtubeUrls: JSON.stringify(['https://www.youtube.com/watch?v=dQw4w9WgXcQ']),
      });
      tank = await stack.createPost({
        title: 'Tank cleaning day',
        content: '',
        category: 'Aquariums',
        date: daysAgo(3),
      });
      await stack.createPost({ title: 'Ancient history', content: 'Long ago.', date: daysAgo(10) });
    });
    beforeEach(resetDigests);

    it('fires at DIGEST_CRON in SITE_TIMEZONE: two replicas, one e-mail per confirmed subscriber', async () => {
      const at = new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000);
      // Two replicas of a deployment whose digest is due in 3 seconds.
      const env = { DIGEST_CRON: cronAt(at, ZONE), ...redisEnv() };
      const [s1, s2] = await Promise.all([stack.startMail(env), stack.startMail(env)]);
      expect(digests()).toHaveLength(0);
      await smtp.waitFor(CONFIRMED.length, isDigest, 15_000);
      expect(Date.now()).toBeGreaterThanOrEqual(at.getTime());
      await sleep(500);
      expect(recipients()).toEqual([...CONFIRMED].sort());
      const { rows } = await stack.sql.query(`SELECT week, status FROM mail.digest_runs`);
      expect(rows).toEqual([{ week: at, status: 'done' }]);
      await Promise.all([s1.close(), s2.close()]);

      // The e-mail: HTML and text, each post with title, picture, excerpt and absolute link.
      const mail = digests().find((m) => m.to.includes('reader1@digest.example'))!;
      expect(mail.parsed.subject).toBe('My Personal Blog: 3 new posts this week');
      const html = mail.parsed.html as string;
      const text = mail.parsed.text!;
      for (const post of [carburettor, sourdough, tank]) {
        expect(post.url).toMatch(/^\//);
        expect(html).toContain(`href="${SITE}${post.url}"`);
        expect(html).toContain(post.title);
        expect(text).toContain(`Read it: ${SITE}${post.url}`);
      }
      expect(carburettor.url).toBe('/garage/motorcycles/rebuilt-the-carburettor');
      expect(html).toContain('src="https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg"');
      const cut = excerpt(carburettor.content);
      expect(cut.endsWith('...')).toBe(true);
      expect(cut.length).toBeLessThanOrEqual(153);
      expect(text).toContain(cut);
      expect(html).toContain(cut);
      expect(text).toContain('Better crumb this time.\n');
      expect(text).not.toContain('Ancient history');
      // Newest first.
      expect(text.indexOf(carburettor.title)).toBeLessThan(text.indexOf(tank.title));

      // RFC 8058 one-click unsubscribe: the same personal link in the headers and the body.
      const token = tokenOf(mail);
      expect(mail.header('list-unsubscribe')).toBe(`<${SITE}/api/unsubscribe?token=${token}>`);
      expect(mail.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      expect(html).toContain(`href="${SITE}/api/unsubscribe?token=${token}"`);
      expect(new Set(digests().map(tokenOf)).size).toBe(CONFIRMED.length);
      await expect(a.send(Patterns.mail.unsubscribeInfo, { token })).resolves.toEqual({
        email: 'r***@digest.example',
        status: 'confirmed',
      });
    });

    it('run twice at the same time on two replicas, sends exactly one e-mail per confirmed subscriber', async () => {
      const [first, second] = await Promise.all([run(a), run(b)]);
      expect(first.week).toBe(second.week);
      expect(first.sent + second.sent).toBe(CONFIRMED.length);
      expect(first.posts).toBe(3);
      await sleep(300);
      expect(recipients()).toEqual([...CONFIRMED].sort());
      // The owner running it again in the same week sends nothing more...
      expect(await run(a)).toEqual({ ...first, sent: 0 });
      // ...except to a subscriber who has not had this week's digest yet.
      await stack.sql.query(
        `UPDATE mail.subscribers SET status = 'confirmed' WHERE email = 'pending1@digest.example'`,
      );
      expect((await run(b)).sent).toBe(1);
      await smtp.waitFor(1, (m) => isDigest(m) && m.to.includes('pending1@digest.example'));
      await stack.sql.query(
        `UPDATE mail.subscribers SET status = 'pending' WHERE email = 'pending1@digest.example'`,
      );
      const deliveries = await stack.sql.query(
        `SELECT status, count(*)::int AS n FROM mail.digest_deliveries GROUP BY 1`,
      );
      expect(deliveries.rows).toEqual([{ status: 'sent', n: CONFIRMED.length + 1 }]);
    });

    it('interrupted after half the subscribers, a restart completes the rest without repeats', async () => {
      await Promise.all([a.close(), b.close()]);
      const slow = await stack.startMail({ ...shared, DIGEST_BATCH_SIZE: '2', DIGEST_CONCURRENCY: '1' });
      smtp.delayMs = 30;
      let stopping: Promise<void> | undefined;
      smtp.onMessage = () => {
        if (!stopping && smtp.received.filter(isDigest).length + 1 >= CONFIRMED.length / 2)
          stopping = slow.close();
      };
      const call = run(slow).catch((error: unknown) => error);
      await eventually(() => stopping !== undefined);
      await stopping;
      smtp.onMessage = undefined;
      smtp.delayMs = 0;
      await call;
      const half = recipients();
      expect(half.length).toBeGreaterThanOrEqual(CONFIRMED.length / 2);
      expect(half.length).toBeLessThan(CONFIRMED.length);
      const state = await stack.sql.query(`SELECT status FROM mail.digest_runs`);
      expect(state.rows).toEqual([{ status: 'running' }]);
      await sleep(300);
      expect(recipients()).toEqual(half); // nobody else is running

      await only(
        () => stack.startMail(shared),
        async () => {
          // The restarted process finds the unfinished week at start and sends only to the others.
          await smtp.waitFor(CONFIRMED.length, isDigest);
          await sleep(400);
          expect(recipients()).toEqual([...CONFIRMED].sort());
          await eventually(async () => {
            const { rows } = await stack.sql.query(`SELECT status FROM mail.digest_runs`);
            return rows[0].status === 'done';
          });
        },
      );
    });

    it('after a crash, never resends a claim whose fate is unknown and finishes the rest', async () => {
      await Promise.all([a.close(), b.close()]);
      // What a process that died mid-send leaves: the week's row, some e-mails sent, two in flight.
      const week = new DigestCalendar('0 8 * * 1', ZONE).weekOf(new Date());
      const content = {
        posts: [
          {
            id: tank.id,
            title: tank.title,
            url: `${SITE}${tank.url}`,
            image: null,
            excerpt: '',
            created_at: tank.created_at,
          },
        ],
        total: 1,
      };
      await stack.sql.query(
        `INSERT INTO mail.digest_runs (week, period_start, period_end, status, content)
         VALUES ($1, now() - interval '7 days', now(), 'running', $2)`,
        [week, JSON.stringify(content)],
      );
      const ids: number[] = (
        await stack.sql.query(`SELECT id FROM mail.subscribers WHERE status = 'confirmed' ORDER BY id`)
      ).rows.map((r) => r.id);
      await stack.sql.query(
        `INSERT INTO mail.digest_deliveries (week, subscriber_id, status, sent_at)
         SELECT $1, id, CASE WHEN n <= 3 THEN 'sent' ELSE 'sending' END, CASE WHEN n <= 3 THEN now() END
         FROM unnest($2::int[]) WITH ORDINALITY AS t (id, n)`,
        [week, ids.slice(0, 5)],
      );
      await only(
        () => stack.startMail(shared),
        async () => {
          // Resumed once the dead sender's heartbeat is stale (3 sweep intervals).
          await smtp.waitFor(CONFIRMED.length - 5, isDigest);
          await sleep(400);
          const { rows } = await stack.sql.query(
            `SELECT status, count(*)::int AS n FROM mail.digest_deliveries GROUP BY 1 ORDER BY 1`,
          );
          expect(rows).toEqual([
            { status: 'sending', n: 2 },
            { status: 'sent', n: CONFIRMED.length - 2 },
          ]);
        },
      );
      const expected = (
        await stack.sql.query(`SELECT email FROM mail.subscribers WHERE id = ANY($1) ORDER BY email`, [
          ids.slice(5),
        ])
      ).rows.map((r) => r.email);
      expect(recipients()).toEqual(expected);
      expect(digests()[0]!.parsed.subject).toBe('My Personal Blog: 1 new post this week');
    });

    it('retries an e-mail whose send failed, once', async () => {
      smtp.refuse.add('reader3@digest.example');
      const result = await run(a);
      expect(result.sent).toBe(CONFIRMED.length - 1);
      const failed = await stack.sql.query(
        `SELECT d.status, d.last_error FROM mail.digest_deliveries d JOIN mail.subscribers s ON s.id = d.subscriber_id
         WHERE s.email = 'reader3@digest.example'`,
      );
      expect(failed.rows).toEqual([{ status: 'failed', last_error: expect.stringMatching(/451/) }]);
      smtp.refuse.clear();
      await smtp.waitFor(1, (m) => isDigest(m) && m.to.includes('reader3@digest.example'));
      await sleep(400);
      expect(recipients()).toEqual([...CONFIRMED].sort());
    });

    it('never mails pending or unsubscribed addresses; unsubscribing takes effect at once', async () => {
      await run(a);
      await smtp.waitFor(CONFIRMED.length, isDigest);
      for (const address of [...PENDING, ...UNSUBSCRIBED]) expect(smtp.to(address)).toHaveLength(0);
      const mail = smtp.to('reader5@digest.example')[0]!;
      const token = tokenOf(mail);
      // The unsubscribe token cannot confirm anything.
      expect(await a.failure(Patterns.mail.confirm, { token })).toEqual({
        status: 404,
        error: MailText.invalidLink,
      });
      await expect(a.send<SubscriptionLinkResult>(Patterns.mail.unsubscribe, { token })).resolves.toEqual({
        email: 'r***@digest.example',
        status: 'unsubscribed',
      });
      // Again: still fine, still unsubscribed.
      await expect(b.send(Patterns.mail.unsubscribe, { token })).resolves.toMatchObject({
        status: 'unsubscribed',
      });
      await resetDigests();
      const next = await run(b);
      expect(next.sent).toBe(CONFIRMED.length - 1);
      await sleep(200);
      expect(smtp.to('reader5@digest.example')).toHaveLength(0);
      await stack.sql.query(
        `UPDATE mail.subscribers SET status = 'confirmed' WHERE email = 'reader5@digest.example'`,
      );
    });
  });
});
