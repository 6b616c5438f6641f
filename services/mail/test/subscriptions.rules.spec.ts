import { BackgroundTasks } from '../src/common/background-tasks.js';
import type { FormLimits } from '../src/common/form-limits.js';
import { hashToken } from '../src/common/link-tokens.js';
import type { SiteTitle } from '../src/common/site-title.js';
import { loadMailConfig } from '../src/config.js';
import { SubscriptionsService } from '../src/subscriptions/subscriptions.service.js';
import type { MailTransport, OutgoingMail } from '../src/transport/mail-transport.js';
import { InMemorySubscriptionsRepository } from './support/in-memory-subscriptions.repository.js';

/** A minute: the checks between a failed send and its retry take milliseconds, even on a loaded machine. */
const RETRY_MS = 60_000;

/** Double opt-in's rules against an in-memory repository: no database, no SMTP. */
describe('subscription rules', () => {
  const config = loadMailConfig({
    DATABASE_URL: 'postgres://unused@localhost/unused',
    SITE_URL: 'https://blog.example',
    MAIL_RETRY_INTERVAL_MS: String(RETRY_MS),
  });
  let store: InMemorySubscriptionsRepository;
  let background: BackgroundTasks;
  let sent: OutgoingMail[];
  let smtpDown: boolean;
  let subscriptions: SubscriptionsService;
  const request = (email: string, frequency: SubscriberFrequency = 'weekly') => ({
    email,
    frequency,
    ip: '198.51.100.7',
  });
  /** The token of the last confirmation link sent. */
  const lastLink = () => /token=([\w-]+)/.exec(String(sent.at(-1)!.text))![1]!;
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: { body: unknown }) => error.body,
    );

  beforeEach(() => {
    store = new InMemorySubscriptionsRepository();
    background = new BackgroundTasks();
    sent = [];
    smtpDown = false;
    const transport = {
      send: async (mail: OutgoingMail) => {
        if (smtpDown) throw new Error('connect ECONNREFUSED');
        sent.push(mail);
        return { messageId: '<1@test>' };
      },
    };
    subscriptions = new SubscriptionsService(
      store,
      { admit: async () => undefined } as unknown as FormLimits,
      transport as unknown as MailTransport,
      background,
      config,
      { current: async () => 'My blog' } as SiteTitle,
    );
  });

  it('subscribing e-mails a link that confirms; the address keeps one row, and a confirmed one stays confirmed', async () => {
    await subscriptions.subscribe(request('Jane@Example.com'));
    await background.drain();
    expect(sent.map((m) => m.to)).toEqual(['Jane@Example.com']);
    expect(await subscriptions.confirm(lastLink())).toEqual({
      email: 'J***@Example.com',
      status: 'confirmed',
    });
    expect(store.byEmail('jane@example.com')).toMatchObject({ status: 'confirmed', confirmationDueAt: null });

    await subscriptions.subscribe(request('jane@example.com'));
    await background.drain();
    expect(store.subscribers).toHaveLength(1);
    expect(store.subscribers[0]!.status).toBe('confirmed');
    expect(await failure(subscriptions.confirm('x'.repeat(43)))).toMatchObject({ status: 404 });
  });

  it('a confirmation that could not be sent is due again after the retry delay, with a fresh link', async () => {
    smtpDown = true;
    await subscriptions.subscribe(request('jane@example.com'));
    await background.drain();
    const subscriber = store.byEmail('jane@example.com')!;
    const due = subscriber.confirmationDueAt!.getTime() - Date.now();
    expect(due).toBeGreaterThan(0);
    expect(due).toBeLessThanOrEqual(RETRY_MS);
    expect(await subscriptions.retryConfirmations()).toBe(0); // not due yet

    smtpDown = false;
    subscriber.confirmationDueAt = new Date(Date.now() - 1);
    expect(await subscriptions.retryConfirmations()).toBe(1);
    expect(subscriber).toMatchObject({ confirmationAttempts: 2, confirmationDueAt: null });
    expect(store.tokens.filter((t) => t.purpose === 'confirm')).toHaveLength(2);
    expect(store.tokens.at(-1)!.hash).toBe(hashToken(lastLink()));
  });

  it('unsubscribing takes effect at once: confirmation links stop working and failed digests are cancelled', async () => {
    await subscriptions.subscribe(request('jane@example.com'));
    await background.drain();
    const confirmToken = lastLink();
    const subscriber = store.byEmail('jane@example.com')!;
    const unsubscribeToken = 'u'.repeat(43);
    store.tokens.push({
      hash: hashToken(unsubscribeToken),
      subscriberId: subscriber.id,
      purpose: 'unsubscribe',
      expiresAt: null,
    });

    expect(await subscriptions.unsubscribeInfo(unsubscribeToken)).toEqual({
      email: 'j***@example.com',
      status: 'pending',
    });
    expect(await subscriptions.unsubscribe(unsubscribeToken)).toEqual({
      email: 'j***@example.com',
      status: 'unsubscribed',
    });
    expect(store.cancelledDigests).toEqual([subscriber.id]);
    expect(await failure(subscriptions.confirm(confirmToken))).toMatchObject({ status: 404 });
    expect(await failure(subscriptions.unsubscribe('v'.repeat(43)))).toMatchObject({ status: 404 });
  });

  it("restores an export's subscribers as they were; from another blog a confirmed address comes in pending", async () => {
    await subscriptions.subscribe(request('here@example.com'));
    await background.drain();
    const rows = [
      {
        email: 'HERE@example.com',
        status: 'confirmed' as const,
        createdAt: '2026-01-01T00:00:00Z',
        confirmedAt: '2026-01-02T00:00:00Z',
        unsubscribedAt: null,
      },
      {
        email: 'a@example.com',
        status: 'confirmed' as const,
        createdAt: '2026-01-01T00:00:00Z',
        confirmedAt: '2026-01-02T00:00:00Z',
        unsubscribedAt: null,
      },
      {
        email: 'b@example.com',
        status: 'unsubscribed' as const,
        createdAt: '2026-01-01T00:00:00Z',
        confirmedAt: null,
        unsubscribedAt: '2026-02-01T00:00:00Z',
      },
    ];
    expect(await subscriptions.restore(rows, false)).toEqual({ restored: 2, unconfirmed: 1 });
    expect(store.byEmail('a@example.com')).toMatchObject({ status: 'pending', confirmedAt: null });
    expect(store.byEmail('b@example.com')!.status).toBe('unsubscribed');
    expect(store.byEmail('here@example.com')!.status).toBe('pending');

    const own = [{ ...rows[1]!, email: 'c@example.com' }];
    expect(await subscriptions.restore(own, true)).toEqual({ restored: 1, unconfirmed: 0 });
    expect(store.byEmail('c@example.com')).toMatchObject({ status: 'confirmed' });
    expect(await subscriptions.restore([], true)).toEqual({ restored: 0, unconfirmed: 0 });
  });
});
