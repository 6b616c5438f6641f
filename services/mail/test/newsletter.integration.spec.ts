import type { INestMicroservice } from '@nestjs/common';
import { Patterns, type NewsletterStatus } from '@blog/contracts';
import { createTestDatabase, freePort, rpcTestClient, type TestDatabase } from '@blog/server-kit/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadMailConfig, startMailService } from '../src/index.js';
import { dkimProblem } from './support/dkim-verify.js';
import { startFaultySmtp, type FaultySmtp } from './support/faulty-smtp.js';
import { eventually, sleep } from './support/mail-stack.js';
import { newsletterPost, startPostsStandIn, type PostsStandIn } from './support/posts-stand-in.js';

/**
 * Every post by e-mail, against a real PostgreSQL and a real SMTP server on loopback that
 * counts what it accepted. The posts side (what is owed, the post's e-mail content) is a
 * stand-in RPC server: the mail service's sending engine is what is tested here.
 */
const SITE = 'https://blog.example';

interface Replica {
  app: INestMicroservice;
  send<T>(pattern: string, data?: unknown): Promise<T>;
  failure(pattern: string, data?: unknown): Promise<{ status: number; error: string }>;
  close(): Promise<void>;
}

describe('every post by e-mail', () => {
  let db: TestDatabase;
  let sql: pg.Client;
  let smtp: FaultySmtp;
  let posts: PostsStandIn;
  let dataDir: string;
  let base: Record<string, string>;
  const replicas = new Set<Replica>();
  let nextPost = 1;

  const startMail = async (env: Record<string, string> = {}): Promise<Replica> => {
    const port = await freePort();
    const app = await startMailService(loadMailConfig({ ...base, ...env, MAIL_PORT: String(port) }));
    const client = rpcTestClient(port);
    const replica: Replica = {
      app,
      send: client.send,
      failure: client.failure,
      async close() {
        if (!replicas.delete(replica)) return;
        client.close();
        await app.close();
      },
    };
    replicas.add(replica);
    return replica;
  };

  /** Confirmed each-post subscribers `name1@…`…`nameN@…`. */
  const subscribe = async (name: string, count: number, frequency = 'each-post'): Promise<string[]> => {
    const emails = Array.from({ length: count }, (_, i) => `${name}${i + 1}@readers.example`);
    await sql.query(
      `INSERT INTO mail.subscribers (email, status, confirmed_at, frequency)
       SELECT e, 'confirmed', now(), $2 FROM unnest($1::text[]) AS e`,
      [emails, frequency],
    );
    return emails;
  };

  const status = (replica: Replica, postId: number) =>
    replica.send<NewsletterStatus>(Patterns.mail.newsletterStatus, { postId });

  const finished = async (replica: Replica, postId: number, timeoutMs = 30_000): Promise<NewsletterStatus> =>
    (await eventually(async () => {
      const current = await status(replica, postId);
      return current.status === 'sent' || current.status === 'stopped' ? current : null;
    }, timeoutMs))!;

  /** Every address got exactly one message; returns the messages. */
  const exactlyOnce = (emails: string[]) => {
    for (const email of emails) expect([email, smtp.to(email).length]).toEqual([email, 1]);
    return emails.map((email) => smtp.to(email)[0]!);
  };

  beforeAll(async () => {
    db = await createTestDatabase('newsletter');
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    smtp = await startFaultySmtp();
    posts = await startPostsStandIn('Stand-in Blog');
    dataDir = await mkdtemp(join(tmpdir(), 'newsletter-test-'));
    base = {
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      POSTS_PORT: String(posts.port),
      SMTP_URL: smtp.url,
      SITE_URL: SITE,
      LOG_LEVEL: 'error',
      MAIL_RETRY_INTERVAL_MS: '200',
      NEWSLETTER_BATCH_SIZE: '5',
      SMTP_CONNECTION_TIMEOUT_MS: '2000',
      SMTP_GREETING_TIMEOUT_MS: '1000',
      SMTP_SOCKET_TIMEOUT_MS: '1500',
    };
    // Runs the migrations once, before any test starts replicas side by side.
    await (await startMail()).close();
  });

  beforeEach(async () => {
    await Promise.all([...replicas].map((replica) => replica.close()));
    await sql.query(`DELETE FROM mail.newsletter_sends`);
    await sql.query(`DELETE FROM mail.subscribers`);
    smtp.reset();
    posts.events.length = 0;
  });

  afterAll(async () => {
    await Promise.all([...replicas].map((replica) => replica.close().catch(() => undefined)));
    await posts?.close();
    await smtp?.close();
    await sql?.end();
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('sends a post once to each each-post subscriber with two replicas sweeping at once', async () => {
    const readers = await subscribe('pair', 40);
    const weekly = await subscribe('weekly', 3, 'weekly');
    await sql.query(
      `INSERT INTO mail.subscribers (email, status) VALUES ('pending@readers.example', 'pending')`,
    );
    const a = await startMail();
    const b = await startMail();
    expect(await a.send(Patterns.mail.newsletterAudience)).toEqual({ eachPost: 40 });
    const id = nextPost++;
    expect(await status(a, id)).toMatchObject({ status: 'none', total: 0, startedAt: null });
    const event = posts.publish(newsletterPost(id));

    const done = await finished(b, id);
    expect(done).toMatchObject({ status: 'sent', total: 40, sent: 40, failed: 0, bounced: 0 });
    expect(done.finishedAt).not.toBeNull();
    await sleep(600); // a few more sweeps of both: nothing more goes out
    exactlyOnce(readers);
    expect(smtp.accepted).toHaveLength(40);
    for (const email of [...weekly, 'pending@readers.example']) expect(smtp.to(email)).toHaveLength(0);
    expect(posts.done).toContain(event.id);
    expect(posts.events).toHaveLength(0);
  });

  it('resumes a send whose process was killed mid-send, sending no one the post twice', async () => {
    const entry = join(process.cwd(), 'services/mail/dist/main.js');
    const built = join(process.cwd(), 'services/mail/dist/newsletter/newsletter.service.js');
    if (!existsSync(built))
      throw new Error('build the services first (npm run build:servers): the killed replica runs dist');
    const readers = await subscribe('killed', 30);
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, [entry], {
      env: { ...process.env, ...base, MAIL_PORT: String(port), NEWSLETTER_RATE_PER_MINUTE: '300' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const id = nextPost++;
    try {
      posts.publish(newsletterPost(id));
      await eventually(() => smtp.accepted.length >= 7, 30_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const before = smtp.accepted.length;
    expect(before).toBeLessThan(30);

    const survivor = await startMail();
    const done = await finished(survivor, id);
    await sleep(600);
    const { rows } = await sql.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM mail.newsletter_deliveries WHERE post_id = $1 GROUP BY status`,
      [id],
    );
    const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    // Claims the killed process had in hand may have gone out: never sent again (at most once).
    const unknown = counts.unknown ?? 0;
    expect(unknown).toBeLessThanOrEqual(5);
    expect(counts.sent).toBe(30 - unknown);
    expect(done).toMatchObject({ status: 'sent', total: 30 });
    for (const email of readers) expect(smtp.to(email).length).toBeLessThanOrEqual(1);
    expect(smtp.accepted.length).toBeGreaterThanOrEqual(30 - unknown);
    expect(smtp.accepted.length).toBeLessThanOrEqual(30);
  }, 60_000);

  it('resumes a send its replica let go when it stopped, on another replica', async () => {
    const readers = await subscribe('restarted', 20);
    const pace = { NEWSLETTER_RATE_PER_MINUTE: '600' };
    const a = await startMail(pace);
    const id = nextPost++;
    posts.publish(newsletterPost(id));
    await eventually(() => smtp.accepted.length >= 6);
    await a.close();
    const stoppedAt = smtp.accepted.length;
    expect(stoppedAt).toBeLessThan(20);
    const b = await startMail(pace);
    expect(await finished(b, id)).toMatchObject({ status: 'sent', total: 20, sent: 20 });
    await sleep(600);
    exactlyOnce(readers);
  });

  it('keeps to NEWSLETTER_RATE_PER_MINUTE', async () => {
    const readers = await subscribe('paced', 8);
    const a = await startMail({ NEWSLETTER_RATE_PER_MINUTE: '120' }); // one every 500 ms
    const id = nextPost++;
    posts.publish(newsletterPost(id));
    await finished(a, id);
    exactlyOnce(readers);
    const times = smtp.accepted.map((mail) => mail.at).sort((x, y) => x - y);
    // 8 messages at 2 a second: 3.5 s from the first handed over to the last (less the first one's connecting).
    expect(times[7]! - times[0]!).toBeGreaterThanOrEqual(3000);
    // No 2-second window holds more than 2 s × 2/s + 1.
    for (const start of times) {
      expect(times.filter((t) => t >= start && t < start + 2000).length).toBeLessThanOrEqual(5);
    }
  });

  it('tries a 4xx again and delivers it; a 5xx fails only its recipient', async () => {
    const readers = await subscribe('mixed', 10);
    const [busy, greylisted, unknownBox, refused] = readers;
    smtp.rcpt = (address, attempt) => {
      if (address === busy && attempt <= 2) return 451;
      if (address === unknownBox) return 550;
      return undefined;
    };
    smtp.data = (address, attempt) => {
      if (address === greylisted && attempt === 1) return { code: 421 };
      if (address === refused) return { code: 554 };
      return undefined;
    };
    const a = await startMail();
    const id = nextPost++;
    posts.publish(newsletterPost(id));
    const done = await finished(a, id);
    expect(done).toMatchObject({ status: 'sent', total: 10, sent: 8, failed: 1, bounced: 1 });
    exactlyOnce(readers.filter((r) => r !== unknownBox && r !== refused));
    expect(smtp.tries.get(busy!)).toBe(3);
    expect(smtp.to(unknownBox!)).toHaveLength(0);
    expect(smtp.to(refused!)).toHaveLength(0);
    expect(smtp.tries.get(unknownBox!)).toBe(1); // a permanent refusal is not tried again
  });

  it('marks an address bounced after two permanent rejections; later posts skip it', async () => {
    const readers = await subscribe('bouncy', 4);
    const gone = readers[0]!;
    smtp.rcpt = (address) => (address === gone ? 550 : undefined);
    const a = await startMail();
    const bounces = async () =>
      (
        await sql.query<{ bounce_count: number; bounced: boolean }>(
          `SELECT bounce_count, bounced_at IS NOT NULL AS bounced FROM mail.subscribers WHERE email = $1`,
          [gone],
        )
      ).rows[0]!;
    const first = nextPost++;
    posts.publish(newsletterPost(first));
    expect(await finished(a, first)).toMatchObject({ total: 4, sent: 3, bounced: 1 });
    expect(await bounces()).toEqual({ bounce_count: 1, bounced: false });
    const second = nextPost++;
    posts.publish(newsletterPost(second));
    expect(await finished(a, second)).toMatchObject({ total: 4, sent: 3, bounced: 1 });
    expect(await bounces()).toEqual({ bounce_count: 2, bounced: true });
    const third = nextPost++;
    posts.publish(newsletterPost(third));
    expect(await finished(a, third)).toMatchObject({ total: 3, sent: 3, bounced: 0 });
    expect(smtp.tries.get(gone)).toBe(2);
    expect(await a.send(Patterns.mail.newsletterAudience)).toEqual({ eachPost: 3 });
  });

  it('bounds a server that hangs mid-DATA, drops the connection or greets slowly, and tries again', async () => {
    const readers = await subscribe('faults', 6);
    const [hung, dropped] = readers;
    smtp.data = (address, attempt) => {
      if (address === hung && attempt === 1) return 'hang';
      if (address === dropped && attempt === 1) return 'close';
      return undefined;
    };
    smtp.greetingDelayMs = 3000; // over SMTP_GREETING_TIMEOUT_MS
    smtp.slowGreetings = 1;
    const a = await startMail({ SMTP_POOL_SIZE: '2' });
    const id = nextPost++;
    posts.publish(newsletterPost(id));
    const done = await finished(a, id, 60_000);
    expect(done).toMatchObject({ status: 'sent', total: 6, sent: 6, failed: 0 });
    exactlyOnce(readers);
  }, 90_000);

  it('stops the rest when the post is unpublished mid-send', async () => {
    await subscribe('stopped', 20);
    const a = await startMail({ NEWSLETTER_RATE_PER_MINUTE: '600', NEWSLETTER_BATCH_SIZE: '2' });
    const id = nextPost++;
    posts.publish(newsletterPost(id));
    await eventually(() => smtp.accepted.length >= 3);
    posts.posts.delete(id);
    const done = await finished(a, id);
    expect(done.status).toBe('stopped');
    expect(done.sent).toBeLessThan(20);
    await sleep(600);
    expect(smtp.accepted.length).toBe(done.sent);
  });

  it('signs with DKIM and carries the list headers, a stable Message-ID, Reply-To and a safe body', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const readers = await subscribe('headers', 2);
    const { rows } = await sql.query<{ id: number }>(
      `INSERT INTO mail.subscribers (email, status, confirmed_at, frequency)
       VALUES ($1, 'confirmed', now(), 'each-post') RETURNING id`,
      ['victim@readers.example\r\nBcc: evil@attacker.example'],
    );
    const injected = rows[0]!.id;
    const a = await startMail({
      DKIM_DOMAIN: 'blog.example',
      DKIM_SELECTOR: 'mail2026',
      DKIM_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().replace(/\n/g, '\\n'),
      NEWSLETTER_REPLY_TO_OWNER: 'true',
      OWNER_EMAIL: 'owner@blog.example',
    });
    const id = nextPost++;
    posts.publish(
      newsletterPost(id, {
        title: 'Hello\r\nBcc: evil@attacker.example',
        html:
          '<h1>Part one</h1><p style="position:fixed" onclick="steal()">Text <a href="/about">about</a> ' +
          '<a href="javascript:alert(1)">bad</a></p><script>alert(1)</script>' +
          '<img src="https://blog.example/media/a.jpg" width="1600" onerror="x()">' +
          '<img src="data:image/png;base64,AAAA"><iframe src="https://evil.example"></iframe>',
        text: 'Text about',
      }),
    );
    const done = await finished(a, id);
    expect(done).toMatchObject({ total: 3, sent: 2, failed: 1 });
    expect(smtp.accepted).toHaveLength(2);
    expect(smtp.accepted.flatMap((mail) => mail.to).sort()).toEqual([...readers].sort());
    const mails = exactlyOnce(readers);
    const ids = (
      await sql.query<{ id: number; email: string }>(
        `SELECT id, email FROM mail.subscribers WHERE email = ANY($1::text[])`,
        [readers],
      )
    ).rows;
    for (const mail of mails) {
      expect(dkimProblem(mail.raw, publicKey)).toBeNull();
      expect(dkimProblem(mail.raw.replace('Text about', 'Text abouT'), publicKey)).toBe('body hash mismatch');
      expect(dkimProblem(mail.raw.replace(/^Subject: Hello/m, 'Subject: Hallo'), publicKey)).toBe(
        'signature does not verify',
      );
      const parsed = await mail.parsed();
      const header = (name: string) => parsed.headerLines.find((h) => h.key === name)?.line ?? '';
      expect(header('dkim-signature')).toMatch(/d=blog\.example;/);
      expect(header('dkim-signature')).toMatch(/s=mail2026;/);
      const subscriberId = ids.find((r) => r.email === mail.to[0])!.id;
      expect(parsed.messageId).toBe(`<newsletter-${id}-${subscriberId}@blog.example>`);
      expect(parsed.subject).toBe('Hello Bcc: evil@attacker.example');
      expect(header('bcc')).toBe('');
      expect(header('list-unsubscribe')).toMatch(
        /<https:\/\/blog\.example\/api\/unsubscribe\?token=[\w-]{43}>/,
      );
      expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
      expect(header('list-id')).toMatch(/^List-ID: "Stand-in Blog" <newsletter\.blog\.example>$/i);
      expect(parsed.replyTo?.text).toBe('owner@blog.example');
      const html = String(parsed.html);
      expect(html).not.toMatch(/<script|onclick|onerror|javascript:|data:image|<iframe|position:fixed/i);
      expect(html).toContain('<p style="margin:0 0 16px">');
      expect(html).toContain('href="https://blog.example/about"');
      expect(html).toContain('width="552"');
      expect(html).toContain('max-width:600px');
      expect(html).toContain(`href="https://blog.example/posts/${id}-post-number-${id}"`);
      expect(html).toContain('View in the browser');
      expect(html).toContain('https://blog.example/api/preferences?token=');
      expect(parsed.text).toContain('Text about');
      expect(parsed.text).toMatch(/Unsubscribe: https:\/\/blog\.example\/api\/unsubscribe\?token=[\w-]{43}/);
    }
    const failed = await sql.query<{ status: string }>(
      `SELECT status FROM mail.newsletter_deliveries WHERE post_id = $1 AND subscriber_id = $2`,
      [id, injected],
    );
    expect(failed.rows[0]!.status).toBe('failed');
    expect(smtp.tries.has('evil@attacker.example')).toBe(false);
  });

  it('sends a test copy to OWNER_EMAIL only, counting nothing; refuses without OWNER_EMAIL', async () => {
    await subscribe('tested', 3);
    const id = nextPost++;
    posts.posts.set(id, newsletterPost(id, { title: 'Draft of a post' }));
    const a = await startMail({ OWNER_EMAIL: 'owner@blog.example' });
    expect(await a.send(Patterns.mail.newsletterTest, { postId: id })).toEqual({
      sentTo: 'owner@blog.example',
    });
    await eventually(() => smtp.accepted.length === 1);
    const parsed = await smtp.accepted[0]!.parsed();
    expect(smtp.accepted[0]!.to).toEqual(['owner@blog.example']);
    expect(parsed.subject).toBe('[Test] Draft of a post');
    expect(await status(a, id)).toMatchObject({ status: 'none', sent: 0 });
    expect(await a.failure(Patterns.mail.newsletterTest, { postId: 999 })).toMatchObject({ status: 404 });
    const noOwner = await startMail();
    expect(await noOwner.failure(Patterns.mail.newsletterTest, { postId: id })).toMatchObject({
      status: 409,
      error: expect.stringContaining('OWNER_EMAIL'),
    });
    await sleep(400);
    expect(smtp.accepted).toHaveLength(1);
  });
});
