import { Inject, Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import {
  ErrorText,
  type NewsletterPost,
  type NewsletterStatus,
  type NewsletterTestResult,
} from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { newLinkToken } from '../common/link-tokens.js';
import { errorText } from '../common/retry.js';
import { SiteTitle } from '../common/site-title.js';
import { DEFAULT_OWNER_EMAIL, MAIL_CONFIG, type MailConfig } from '../config.js';
import { PostsClient } from '../digest/posts-client.js';
import { PreferencesLinks } from '../subscriptions/preferences-links.js';
import { MailTransport } from '../transport/mail-transport.js';
import { NewsletterEmail, isPlainAddress, type NewsletterRecipient } from './newsletter-email.js';
import { NewsletterRepository, type NewsletterResult } from './newsletter.repository.js';
import { Pace, smtpFailure } from './smtp-outcome.js';

const PENDING_BATCH = 20;
/** The longest wait between two tries of one e-mail. */
const MAX_BACKOFF_MS = 60_000;
/** A failing posts service is logged at most this often. */
const QUIET_MS = 10 * 60_000;

/**
 * Every post by e-mail. Each sweep asks the posts service for the posts owed and due; for
 * each, one transaction inserts the post's send and a claim per (post, subscriber) for every
 * confirmed, each-post, not bounced subscriber, then posts is told the event is taken. The
 * claims are the whole audience: a later sweep, a second replica or a restart finds them and
 * never makes more, and each claim is sent at most once.
 *
 * One process at a time sends a post (it holds the send by a heartbeat; a send nobody beat for
 * 3 sweep intervals is taken over by the next sweep, here or on a replica). It takes
 * NEWSLETTER_BATCH_SIZE claims at a time, asking posts for the post before each batch (gone:
 * the rest is `stopped`). A claim taken by a process that died mid-send is `unknown` and never
 * sent again: at most once. Sends are paced at NEWSLETTER_RATE_PER_MINUTE; a 4xx, a timeout or
 * a dropped connection is tried again after a doubling wait (NEWSLETTER_MAX_ATTEMPTS tries);
 * a 5xx fails that one e-mail only, and a 5xx to RCPT TO counts toward the address's bounce.
 */
@Injectable()
export class NewsletterService implements OnModuleDestroy {
  private readonly logger = new Logger(NewsletterService.name);
  private readonly pace: Pace;
  private stopping = false;
  private sending?: Promise<void>;
  private lastPostsWarning = 0;

  constructor(
    private readonly store: NewsletterRepository,
    private readonly posts: PostsClient,
    private readonly transport: MailTransport,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
    private readonly siteTitle: SiteTitle,
    @Optional() private readonly preferences?: PreferencesLinks,
  ) {
    this.pace = new Pace(config.NEWSLETTER_RATE_PER_MINUTE);
  }

  /** One sweep: takes over what posts owes, then sends (in the background) what is unfinished. */
  async sweep(): Promise<void> {
    if (this.stopping) return;
    await this.takeEvents();
    if (!this.sending) {
      this.sending = this.sendUnfinished()
        .catch((error: unknown) => this.logger.error(`per-post e-mail failed: ${errorText(error)}`))
        .finally(() => (this.sending = undefined));
    }
  }

  async status(postId: number): Promise<NewsletterStatus> {
    return this.store.status(postId);
  }

  async audience(): Promise<{ eachPost: number }> {
    return { eachPost: await this.store.audience() };
  }

  /** The post's e-mail to OWNER_EMAIL only, "[Test]" in the subject; nothing is recorded. */
  async test(postId: number): Promise<NewsletterTestResult> {
    const owner = this.config.OWNER_EMAIL;
    if (owner === DEFAULT_OWNER_EMAIL || !isPlainAddress(owner)) {
      throw new RpcError({
        status: 409,
        error: 'OWNER_EMAIL is not set: the test e-mail has no address to go to',
      });
    }
    // A draft or scheduled post may be tried out before it is published.
    const post = await this.posts.newsletterPost(postId, true);
    if ('gone' in post) throw new RpcError({ status: 404, error: ErrorText.notFound });
    await this.transport.send((await this.email(post)).test(owner));
    return { sentTo: owner };
  }

  /** Stops taking batches; the send in hand is let go so the next sweep resumes it at once. */
  async onModuleDestroy() {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.sending, new Promise((resolve) => (timer = setTimeout(resolve, 20_000)))]);
    clearTimeout(timer);
  }

  private async takeEvents(): Promise<void> {
    let events;
    try {
      events = await this.posts.newsletterPending(PENDING_BATCH);
    } catch (error) {
      if (Date.now() - this.lastPostsWarning > QUIET_MS) {
        this.lastPostsWarning = Date.now();
        this.logger.warn(`the posts owed by e-mail cannot be read now: ${errorText(error)}`);
      }
      return;
    }
    for (const event of events) {
      if (this.stopping) return;
      const created = await this.store.startSend(event);
      if (created) {
        const { total } = await this.store.status(event.postId);
        this.logger.log(`post ${event.postId}: e-mail claimed for ${total} subscribers`);
      }
      await this.posts.newsletterDone(event.id);
    }
  }

  private async sendUnfinished(): Promise<void> {
    const staleSeconds = (3 * this.config.MAIL_RETRY_INTERVAL_MS) / 1000;
    while (!this.stopping) {
      const postId = await this.store.takeOver(staleSeconds);
      if (postId === null) return;
      await this.sendPost(postId);
    }
  }

  private async sendPost(postId: number): Promise<void> {
    const beat = setInterval(
      () => void this.store.heartbeat(postId).catch(() => undefined),
      this.config.MAIL_RETRY_INTERVAL_MS,
    );
    beat.unref();
    let email: NewsletterEmail | undefined;
    let built = '';
    // One process holds the send, so what lies behind the cursor was taken (a claim put back
    // when a process stops is found again by the next holder, which starts from the first).
    let cursor = 0;
    try {
      for (;;) {
        if (this.stopping) {
          await this.store.release(postId);
          return;
        }
        const post = await this.posts.newsletterPost(postId);
        if ('gone' in post) {
          await this.store.stop(postId);
          this.logger.log(`post ${postId} is no longer published: the rest of its e-mail is not sent`);
          return;
        }
        const key = JSON.stringify([post.title, post.url, post.html, post.text]);
        if (!email || key !== built) {
          email = await this.email(post);
          built = key;
        }
        const batch = await this.store.claimBatch(postId, cursor, this.config.NEWSLETTER_BATCH_SIZE);
        if (!batch.length) {
          if (await this.store.finishIfDone(postId)) {
            const status = await this.store.status(postId);
            this.logger.log(
              `post ${postId}: e-mail sent to ${status.sent} of ${status.total} (${status.failed} failed, ${status.bounced} bounced)`,
            );
          }
          return;
        }
        cursor = Math.max(...batch.map((r) => r.id));
        const wanted = batch.filter((r) => r.wanted);
        const tokens = wanted.map(() => newLinkToken());
        await this.store.addUnsubscribeTokens(
          wanted.map((r) => r.id),
          tokens.map((t) => t.hash),
        );
        const preferences = this.preferences
          ? await this.preferences.preferencesTokens(wanted.map((r) => r.id))
          : wanted.map(() => '');
        const results: NewsletterResult[] = batch
          .filter((r) => !r.wanted)
          .map((r) => ({ id: r.id, outcome: 'cancelled', error: 'no longer subscribed to every post' }));
        const current = email;
        results.push(
          ...(await Promise.all(
            wanted.map((r, i) =>
              this.deliver(current, {
                id: r.id,
                email: r.email,
                token: tokens[i]!.token,
                preferencesToken: preferences[i]!,
              }),
            ),
          )),
        );
        await this.store.record(postId, results);
        await this.store.countBounces(results.filter((r) => r.outcome === 'bounced').map((r) => r.id));
      }
    } catch (error) {
      await this.store.release(postId).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(beat);
    }
  }

  /** One copy, tried again after a temporary failure; its outcome for the record. */
  private async deliver(email: NewsletterEmail, recipient: NewsletterRecipient): Promise<NewsletterResult> {
    let mail;
    try {
      mail = email.for(recipient);
    } catch (error) {
      return { id: recipient.id, outcome: 'failed', error: errorText(error) };
    }
    for (let attempt = 1; ; attempt++) {
      await this.pace.wait();
      try {
        await this.transport.send(mail);
        return { id: recipient.id, outcome: 'sent', error: null };
      } catch (error) {
        const kind = smtpFailure(error);
        const text = errorText(error);
        if (kind === 'rejected') return { id: recipient.id, outcome: 'bounced', error: text };
        if (kind === 'permanent') return { id: recipient.id, outcome: 'failed', error: text };
        if (attempt >= this.config.NEWSLETTER_MAX_ATTEMPTS) {
          this.logger.warn(`an e-mail of a post failed ${attempt} times, giving up: ${text}`);
          return { id: recipient.id, outcome: 'failed', error: text };
        }
        // Refused for now: back to the waiting claims when this process stops before the next try.
        if (this.stopping) return { id: recipient.id, outcome: 'claimed', error: text };
        const wait = Math.min(MAX_BACKOFF_MS, this.config.MAIL_RETRY_INTERVAL_MS * 2 ** (attempt - 1));
        await new Promise((resolve) => setTimeout(resolve, wait));
        if (this.stopping) return { id: recipient.id, outcome: 'claimed', error: text };
      }
    }
  }

  private async email(post: NewsletterPost): Promise<NewsletterEmail> {
    return new NewsletterEmail(post, {
      siteTitle: await this.siteTitle.current(),
      siteUrl: this.config.SITE_URL,
      unsubscribeBase: `${this.config.SITE_URL}/api/unsubscribe?token=`,
      ...(this.preferences ? { preferencesBase: this.preferences.base } : {}),
      ...(this.config.NEWSLETTER_REPLY_TO_OWNER && this.config.OWNER_EMAIL !== DEFAULT_OWNER_EMAIL
        ? { replyTo: this.config.OWNER_EMAIL }
        : {}),
    });
  }
}
