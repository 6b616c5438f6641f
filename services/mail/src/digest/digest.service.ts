import { Inject, Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { ErrorText, type DigestRunResult } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { newLinkToken } from '../common/link-tokens.js';
import { errorText, retryDelayMs } from '../common/retry.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { SiteTitle } from '../common/site-title.js';
import { MailTransport } from '../transport/mail-transport.js';
import { DigestEmail, toDigestPost, type DigestContent } from './digest-email.js';
import { DigestCalendar } from './digest-calendar.js';
import { DigestRepository, type DigestRecipientRow, type DigestRun } from './digest.repository.js';
import { PostsClient } from './posts-client.js';
import { PreferencesLinks } from '../subscriptions/preferences-links.js';

export type DigestTrigger = 'schedule' | 'manual';

interface Recipient extends DigestRecipientRow {
  token: string;
  /** The preferences link's token ('' without PreferencesLinks). */
  preferencesToken: string;
}

const WEEK_MS = 7 * 24 * 3600 * 1000;
/** A run still 'running' this long after it started was abandoned by a dead process long ago: not resumed. */
const RESUME_MAX_AGE_MS = 2 * 24 * 3600 * 1000;
/** A claim still 'sending' this long was lost with its process; it may have gone out, so it is never resent. */
const SENDING_LEASE_MS = 15 * 60_000;
const RETRY_BATCH = 50;

/**
 * The weekly digest. Each run belongs to a digest week (see DigestCalendar) whose row keeps
 * the posts it carries. Before an e-mail is sent, its (week, subscriber) row is inserted:
 * the primary key lets exactly one sender have it, so two replicas running at once, a run
 * the owner starts and a restart half-way never send a subscriber the same week twice.
 * An interrupted run is resumed by the sweep and sends only to the subscribers not yet
 * claimed. A claim whose fate is unknown (its process died mid-send) is not resent: at most
 * once. A send that failed for sure is retried by the sweep.
 */
@Injectable()
export class DigestService implements OnModuleDestroy {
  private readonly logger = new Logger(DigestService.name);
  private stopping = false;
  /** Weeks this process is sending now (the sweep does not resume them a second time). */
  private readonly active = new Map<string, number>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly store: DigestRepository,
    private readonly posts: PostsClient,
    private readonly transport: MailTransport,
    private readonly calendar: DigestCalendar,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
    private readonly siteTitle: SiteTitle,
    @Optional() private readonly preferences?: PreferencesLinks,
  ) {}

  private async preferencesTokens(ids: number[]): Promise<string[]> {
    return this.preferences ? this.preferences.preferencesTokens(ids) : ids.map(() => '');
  }

  /**
   * Sends the digest of the current week to every confirmed subscriber who has not had it.
   * `scheduledAt` is the cron occurrence a scheduled run fires for (its week, whatever the delay).
   */
  async run(trigger: DigestTrigger, scheduledAt?: Date): Promise<DigestRunResult> {
    if (this.stopping) throw new RpcError({ status: 503, error: ErrorText.serviceUnavailable });
    const now = new Date();
    const week = this.calendar.weekOf(scheduledAt ?? now);
    const run = await this.ensureRun(week, now);
    const result: DigestRunResult = {
      week: week.toISOString(),
      sent: 0,
      posts: run.content.posts?.length ?? 0,
      skipped: run.status === 'skipped',
    };
    if (run.status === 'skipped') {
      this.logger.log(`digest ${result.week} (${trigger}): no posts this week, nothing sent`);
      return result;
    }
    result.sent = await this.track(this.sendAll(run));
    this.logger.log(`digest ${result.week} (${trigger}): ${result.sent} e-mails sent, ${result.posts} posts`);
    return result;
  }

  /**
   * Resumes runs left unfinished: nobody renewed their heartbeat for 3 sweep intervals (a crash)
   * or their sender let go of them when it stopped.
   */
  async resumeUnfinished(): Promise<void> {
    if (this.stopping) return;
    const runs = await this.store.stalledRuns((3 * this.config.MAIL_RETRY_INTERVAL_MS) / 1000);
    for (const run of runs) {
      const week = run.week.toISOString();
      if (this.active.has(week)) continue;
      if (Date.now() - run.createdAt.getTime() > RESUME_MAX_AGE_MS) {
        this.logger.warn(`digest ${week} was left unfinished too long ago; not resumed`);
        await this.store.finishRun(run.week);
        continue;
      }
      this.logger.log(`resuming the unfinished digest ${week}`);
      void this.track(this.sendAll(run)).catch((error: unknown) =>
        this.logger.error(`resuming digest ${week} failed: ${errorText(error)}`),
      );
    }
  }

  /** Sends again the e-mails whose send failed, up to DIGEST_MAX_ATTEMPTS tries each. */
  async retryFailed(): Promise<number> {
    if (this.stopping) return 0;
    const due = await this.store.claimRetries(RETRY_BATCH);
    let sent = 0;
    const emails = new Map<string, DigestEmail | null>();
    for (const delivery of due) {
      const key = delivery.week.toISOString();
      if (!emails.has(key)) {
        const run = await this.store.findRun(delivery.week);
        emails.set(key, run ? await this.email(run) : null);
      }
      const address = await this.store.confirmedEmail(delivery.subscriberId);
      const email = emails.get(key);
      if (!email || !address) {
        await this.store.cancelDelivery(delivery.week, delivery.subscriberId);
        continue;
      }
      const { token, hash } = newLinkToken();
      await this.store.addUnsubscribeToken(delivery.subscriberId, hash);
      const [preferencesToken] = await this.preferencesTokens([delivery.subscriberId]);
      const recipient = {
        id: delivery.subscriberId,
        email: address,
        token,
        preferencesToken: preferencesToken!,
      };
      const delivered = await this.deliver(delivery.week, [recipient], email, delivery.attempts);
      sent += delivered;
    }
    return sent;
  }

  /** Claims whose sender died mid-send are marked unknown (for the record: they are never resent). */
  async expireLostClaims(): Promise<void> {
    await this.store.expireClaims(SENDING_LEASE_MS / 1000);
  }

  /** Stops claiming new subscribers and waits for the e-mails already handed to SMTP. */
  async onModuleDestroy() {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, 20_000))),
    ]);
    clearTimeout(timer);
  }

  /**
   * The week's row, created with the posts of the past week (the 7 days before now); a week that
   * had none so far is looked at again, so a later run of the owner sends the posts written since.
   */
  private async ensureRun(week: Date, now: Date): Promise<DigestRun> {
    let run = await this.store.findRun(week);
    if (!run) {
      const from = new Date(now.getTime() - WEEK_MS);
      await this.store.insertRun({ week, from, to: now, content: await this.content(from, now) });
      run = await this.store.findRun(week);
    } else if (run.status === 'skipped') {
      const from = new Date(now.getTime() - WEEK_MS);
      const content = await this.content(from, now);
      if (content.posts.length) {
        await this.store.reopenSkipped({ week, from, to: now, content });
        run = await this.store.findRun(week);
      }
    }
    return run!;
  }

  private async content(from: Date, to: Date): Promise<DigestContent> {
    const { posts, total } = await this.posts.postsBetween(from, to);
    return { posts: posts.map((post) => toDigestPost(post, this.config.SITE_URL)), total };
  }

  private async email(run: DigestRun): Promise<DigestEmail> {
    return new DigestEmail(run.content, {
      siteTitle: await this.siteTitle.current(),
      siteUrl: this.config.SITE_URL,
      timeZone: this.config.SITE_TIMEZONE,
      unsubscribeBase: `${this.config.SITE_URL}/api/unsubscribe?token=`,
      ...(this.preferences ? { preferencesBase: this.preferences.base } : {}),
    });
  }

  /**
   * DIGEST_CONCURRENCY loops each claim DIGEST_BATCH_SIZE subscribers (in id order, one claim
   * at a time per process) and send to them, until no confirmed subscriber is left unclaimed.
   */
  private async sendAll(run: DigestRun): Promise<number> {
    const week = run.week.toISOString();
    this.active.set(week, (this.active.get(week) ?? 0) + 1);
    const email = await this.email(run);
    let cursor = 0;
    let exhausted = false;
    let claiming: Promise<unknown> = Promise.resolve();
    const claimNext = () => {
      const next = claiming.then(async () => {
        if (exhausted || this.stopping) return null;
        const batch = await this.claim(run.week, cursor);
        if (!batch) exhausted = true;
        else cursor = batch.lastId;
        await this.store.heartbeat(run.week);
        return batch;
      });
      claiming = next.catch(() => undefined);
      return next;
    };
    let sent = 0;
    const loop = async () => {
      for (;;) {
        const batch = await claimNext();
        if (!batch) return;
        if (!batch.recipients.length) continue;
        const delivered = await this.deliver(run.week, batch.recipients, email, 1); // (not `sent += await`: loops run at once)
        sent += delivered;
      }
    };
    try {
      const loops = await Promise.allSettled(Array.from({ length: this.config.DIGEST_CONCURRENCY }, loop));
      const failure = loops.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failure) throw failure.reason;
      if (exhausted) {
        await this.store.finishRun(run.week);
      } else {
        // Stopped half-way: let go of the week so the next sweep (here or on a replica) resumes it at once.
        await this.store.releaseRun(run.week);
      }
      return sent;
    } finally {
      const left = (this.active.get(week) ?? 1) - 1;
      if (left > 0) this.active.set(week, left);
      else this.active.delete(week);
    }
  }

  /**
   * The next confirmed subscribers after `cursor` without a row for the week, claimed with
   * their unsubscribe tokens in one statement. Rows another sender inserted first are skipped.
   * Null when none is left.
   */
  private async claim(
    week: Date,
    cursor: number,
  ): Promise<{ lastId: number; recipients: Recipient[] } | null> {
    const candidates = await this.store.unclaimedSubscribers(week, cursor, this.config.DIGEST_BATCH_SIZE);
    if (candidates.length === 0) return null;
    const tokens = candidates.map(() => newLinkToken());
    const mine = new Set(
      await this.store.claim(
        week,
        candidates.map((c) => c.id),
        tokens.map((t) => t.hash),
      ),
    );
    const claimed = candidates
      .map((candidate, i) => ({ id: candidate.id, email: candidate.email, token: tokens[i]!.token }))
      .filter((recipient) => mine.has(recipient.id));
    const preferencesTokens = await this.preferencesTokens(claimed.map((r) => r.id));
    return {
      lastId: candidates[candidates.length - 1]!.id,
      recipients: claimed.map((r, i) => ({ ...r, preferencesToken: preferencesTokens[i]! })),
    };
  }

  /** Sends to claimed recipients, then records which went out and which failed (to retry). */
  private async deliver(
    week: Date,
    recipients: Recipient[],
    email: DigestEmail,
    attempt: number,
  ): Promise<number> {
    const results = await Promise.all(
      recipients.map(async (recipient) => {
        try {
          await this.transport.send(email.for(recipient.email, recipient.token, recipient.preferencesToken));
          return { id: recipient.id, error: null };
        } catch (error) {
          return { id: recipient.id, error: errorText(error) };
        }
      }),
    );
    const sent = results.filter((r) => r.error === null).map((r) => r.id);
    const failed = results.filter((r): r is { id: number; error: string } => r.error !== null);
    if (sent.length) {
      await this.store.markSent(week, sent);
    }
    if (failed.length) {
      const giveUp = attempt >= this.config.DIGEST_MAX_ATTEMPTS;
      this.logger.warn(
        `digest ${week.toISOString()}: ${failed.length} e-mails failed (try ${attempt}${giveUp ? ', giving up' : ''}): ${failed[0]!.error}`,
      );
      await this.store.markFailed(week, failed, giveUp, retryDelayMs(this.config, attempt) / 1000);
    }
    return sent.length;
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    void promise.then(
      () => this.inFlight.delete(promise),
      () => this.inFlight.delete(promise),
    );
    return promise;
  }
}
