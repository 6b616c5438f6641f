import type { PostView } from '@blog/contracts';
import { hashToken } from '../src/common/link-tokens.js';
import type { SiteTitle } from '../src/common/site-title.js';
import { loadMailConfig } from '../src/config.js';
import { DigestCalendar } from '../src/digest/digest-calendar.js';
import { DigestService } from '../src/digest/digest.service.js';
import type { PostsClient } from '../src/digest/posts-client.js';
import type { MailTransport, OutgoingMail } from '../src/transport/mail-transport.js';
import { InMemoryDigestRepository } from './support/in-memory-digest.repository.js';

/** The digest's rules (claim once, retry, give up, resume) against an in-memory repository: no database, no SMTP. */
describe('digest rules', () => {
  const config = loadMailConfig({
    DATABASE_URL: 'postgres://unused@localhost/unused',
    SITE_URL: 'https://blog.example',
    DIGEST_BATCH_SIZE: '2',
    DIGEST_CONCURRENCY: '2',
    DIGEST_MAX_ATTEMPTS: '2',
    MAIL_RETRY_INTERVAL_MS: '1000',
  });
  const post = { id: 7, title: 'New tyres', excerpt: 'Short.', url: '/new-tyres', mainMedia: null };
  let store: InMemoryDigestRepository;
  let posts: PostView[];
  let sent: OutgoingMail[];
  let refused: Set<string>;
  let digest: DigestService;

  beforeEach(() => {
    store = new InMemoryDigestRepository();
    posts = [{ ...post, created_at: new Date().toISOString() } as PostView];
    sent = [];
    refused = new Set();
    const postsClient = { postsBetween: async () => ({ posts, total: posts.length }) };
    const transport = {
      send: async (mail: OutgoingMail) => {
        if (refused.has(mail.to as string)) throw new Error('550 mailbox unavailable');
        sent.push(mail);
        return { messageId: `<${sent.length}@test>` };
      },
    };
    digest = new DigestService(
      store,
      postsClient as unknown as PostsClient,
      transport as unknown as MailTransport,
      new DigestCalendar(config.DIGEST_CRON, config.SITE_TIMEZONE),
      config,
      { current: async () => 'My blog' } as SiteTitle,
    );
  });
  afterEach(() => digest.onModuleDestroy());

  const recipients = () => sent.map((mail) => mail.to).sort();
  const tokenOf = (mail: OutgoingMail) => /token=([\w-]+)>/.exec(mail.headers!['List-Unsubscribe']!)![1]!;

  it('sends each confirmed subscriber the week once, each with its own stored unsubscribe token', async () => {
    for (const id of [1, 2, 3, 4, 5]) store.addSubscriber(id);
    store.addSubscriber(6, 'pending');
    store.addSubscriber(7, 'unsubscribed');
    const first = await digest.run('manual');
    expect(first).toMatchObject({ sent: 5, posts: 1, skipped: false });
    expect(recipients()).toEqual([1, 2, 3, 4, 5].map((id) => `reader${id}@example.com`));
    expect(sent.map((mail) => store.tokens.some((t) => t.hash === hashToken(tokenOf(mail))))).toEqual(
      Array(5).fill(true),
    );
    expect((await store.findRun(new Date(first.week)))!.status).toBe('done');

    store.addSubscriber(8);
    expect(await digest.run('schedule')).toMatchObject({ week: first.week, sent: 1 });
    expect(sent.at(-1)!.to).toBe('reader8@example.com');
  });

  it('skips a week without posts, and sends it when a later run finds posts', async () => {
    store.addSubscriber(1);
    posts = [];
    expect(await digest.run('manual')).toMatchObject({ sent: 0, posts: 0, skipped: true });
    expect(sent).toEqual([]);
    posts = [{ ...post, created_at: new Date().toISOString() } as PostView];
    expect(await digest.run('manual')).toMatchObject({ sent: 1, posts: 1, skipped: false });
  });

  it('retries a failed send with a fresh token, cancels it for an address no longer confirmed, and gives up after DIGEST_MAX_ATTEMPTS', async () => {
    for (const id of [1, 2, 3]) store.addSubscriber(id);
    refused = new Set(['reader1@example.com', 'reader2@example.com']);
    const { week, sent: first } = await digest.run('manual');
    expect(first).toBe(1);
    const delivery = (id: number) => store.delivery(new Date(week), id)!;
    expect(delivery(1)).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: '550 mailbox unavailable',
    });
    expect(delivery(1).nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());

    expect(await digest.retryFailed()).toBe(0); // not due yet
    for (const id of [1, 2]) delivery(id).nextAttemptAt = new Date(Date.now() - 1);
    store.subscribers.get(2)!.status = 'unsubscribed';
    expect(await digest.retryFailed()).toBe(0);
    expect(delivery(2).status).toBe('cancelled');
    // The second try fails too: DIGEST_MAX_ATTEMPTS is 2, so it is given up.
    expect(delivery(1)).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null });
    expect(await digest.retryFailed()).toBe(0);

    refused.clear();
    const third = store.delivery(new Date(week), 3)!;
    Object.assign(third, { status: 'failed', nextAttemptAt: new Date(Date.now() - 1) });
    const tokens = store.tokens.length;
    expect(await digest.retryFailed()).toBe(1);
    expect(third).toMatchObject({ status: 'sent', attempts: 2 });
    expect(store.tokens.length).toBe(tokens + 1);
    expect(store.tokens.at(-1)!.hash).toBe(hashToken(tokenOf(sent.at(-1)!)));
  });

  it('resumes a stalled week for the subscribers not yet claimed; one left too long ago is closed unsent', async () => {
    for (const id of [1, 2, 3]) store.addSubscriber(id);
    const week = new DigestCalendar(config.DIGEST_CRON, config.SITE_TIMEZONE).weekOf(new Date());
    await store.insertRun({ week, from: new Date(), to: new Date(), content: { posts: [], total: 1 } });
    const run = store.runs.get(week.getTime())!;
    Object.assign(run, { status: 'running', content: { posts: [], total: 1 } });
    await store.claim(week, [1], ['kept']);
    store.delivery(week, 1)!.status = 'sent';

    await digest.resumeUnfinished(); // sends in the background
    while (run.status !== 'done') await new Promise((resolve) => setTimeout(resolve, 5));
    expect(recipients()).toEqual(['reader2@example.com', 'reader3@example.com']);
    expect(run.status).toBe('done');

    const old = new Date(week.getTime() - 7 * 24 * 3600 * 1000);
    await store.insertRun({ week: old, from: old, to: old, content: { posts: [], total: 1 } });
    Object.assign(store.runs.get(old.getTime())!, {
      status: 'running',
      createdAt: new Date(Date.now() - 3 * 24 * 3600 * 1000),
    });
    sent = [];
    await digest.resumeUnfinished();
    expect(store.runs.get(old.getTime())!.status).toBe('done');
    expect(sent).toEqual([]);
  });

  it('marks claims still sending after their lease unknown, never to be sent again', async () => {
    store.addSubscriber(1);
    const week = new Date('2026-11-16T07:00:00Z');
    await store.claim(week, [1], ['h']);
    await digest.expireLostClaims();
    expect(store.delivery(week, 1)!.status).toBe('sending');
    store.delivery(week, 1)!.claimedAt = new Date(Date.now() - 16 * 60_000);
    await digest.expireLostClaims();
    expect(store.delivery(week, 1)!.status).toBe('unknown');
    expect(await digest.retryFailed()).toBe(0);
  });
});
