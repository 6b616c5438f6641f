import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ErrorText, type DigestRunResult } from '@blog/contracts';
import { RpcError } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import { newLinkToken } from '../common/link-tokens.js';
import { errorText, retryDelayMs } from '../common/retry.js';
import { MAIL_CONFIG, type MailConfig } from '../config.js';
import { SiteTitle } from '../common/site-title.js';
import { MailTransport } from '../transport/mail-transport.js';
import { DigestEmail, toDigestPost, type DigestContent } from './digest-email.js';
import { DigestCalendar } from './digest-calendar.js';
import { PostsClient } from './posts-client.js';
import { queryRows } from '../common/sql.js';

export type DigestTrigger = 'schedule' | 'manual';

interface RunRow {
  week: Date;
  period_start: Date;
  period_end: Date;
  status: 'skipped' | 'running' | 'done';
  content: DigestContent;
  created_at: Date;
}

interface Recipient {
  id: number;
  email: string;
  token: string;
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
    @InjectDataSource() private readonly db: DataSource,
    private readonly posts: PostsClient,
    private readonly transport: MailTransport,
    private readonly calendar: DigestCalendar,
    @Inject(MAIL_CONFIG) private readonly config: MailConfig,
    private readonly siteTitle: SiteTitle,
  ) {}

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
    const runs = await queryRows<RunRow>(
      this.db,
      `SELECT * FROM digest_runs WHERE status = 'running'
         AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => $1))`,
      [(3 * this.config.MAIL_RETRY_INTERVAL_MS) / 1000],
    );
    for (const run of runs) {
      const week = run.week.toISOString();
      if (this.active.has(week)) continue;
      if (Date.now() - run.created_at.getTime() > RESUME_MAX_AGE_MS) {
        this.logger.warn(`digest ${week} was left unfinished too long ago; not resumed`);
        await this.db.query(
          `UPDATE digest_runs SET status = 'done', finished_at = now() WHERE week = $1 AND status = 'running'`,
          [run.week],
        );
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
    const due = await queryRows<{ week: Date; subscriber_id: number; attempts: number }>(
      this.db,
      `UPDATE digest_deliveries d SET status = 'sending', attempts = d.attempts + 1, claimed_at = now(),
         next_attempt_at = NULL
       WHERE (d.week, d.subscriber_id) IN (
         SELECT week, subscriber_id FROM digest_deliveries
         WHERE status = 'failed' AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING d.week, d.subscriber_id, d.attempts`,
      [RETRY_BATCH],
    );
    let sent = 0;
    const emails = new Map<string, DigestEmail | null>();
    for (const delivery of due) {
      const key = delivery.week.toISOString();
      if (!emails.has(key)) {
        const rows = await queryRows<RunRow>(this.db, `SELECT * FROM digest_runs WHERE week = $1`, [
          delivery.week,
        ]);
        emails.set(key, rows[0] ? await this.email(rows[0]) : null);
      }
      const subscribers = await queryRows<{ email: string }>(
        this.db,
        `SELECT email FROM subscribers WHERE id = $1 AND status = 'confirmed'`,
        [delivery.subscriber_id],
      );
      const email = emails.get(key);
      if (!email || !subscribers[0]) {
        await this.db.query(
          `UPDATE digest_deliveries SET status = 'cancelled' WHERE week = $1 AND subscriber_id = $2`,
          [delivery.week, delivery.subscriber_id],
        );
        continue;
      }
      const { token, hash } = newLinkToken();
      await this.db.query(
        `INSERT INTO mail_tokens (hash, subscriber_id, purpose) VALUES ($1, $2, 'unsubscribe')`,
        [hash, delivery.subscriber_id],
      );
      const recipient = { id: delivery.subscriber_id, email: subscribers[0].email, token };
      const delivered = await this.deliver(delivery.week, [recipient], email, delivery.attempts);
      sent += delivered;
    }
    return sent;
  }

  /** Claims whose sender died mid-send are marked unknown (for the record: they are never resent). */
  async expireLostClaims(): Promise<void> {
    await this.db.query(
      `UPDATE digest_deliveries SET status = 'unknown'
       WHERE status = 'sending' AND claimed_at < now() - make_interval(secs => $1)`,
      [SENDING_LEASE_MS / 1000],
    );
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
  private async ensureRun(week: Date, now: Date): Promise<RunRow> {
    let run = await this.findRun(week);
    if (!run) {
      const from = new Date(now.getTime() - WEEK_MS);
      const content = await this.content(from, now);
      await this.db.query(
        `INSERT INTO digest_runs (week, period_start, period_end, status, content)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (week) DO NOTHING`,
        [week, from, now, content.posts.length ? 'running' : 'skipped', JSON.stringify(content)],
      );
      run = await this.findRun(week);
    } else if (run.status === 'skipped') {
      const from = new Date(now.getTime() - WEEK_MS);
      const content = await this.content(from, now);
      if (content.posts.length) {
        await this.db.query(
          `UPDATE digest_runs SET status = 'running', content = $2, period_start = $3, period_end = $4,
             heartbeat_at = now()
           WHERE week = $1 AND status = 'skipped'`,
          [week, JSON.stringify(content), from, now],
        );
        run = await this.findRun(week);
      }
    }
    return run!;
  }

  private async findRun(week: Date): Promise<RunRow | undefined> {
    const rows = await queryRows<RunRow>(this.db, `SELECT * FROM digest_runs WHERE week = $1`, [week]);
    return rows[0];
  }

  private async content(from: Date, to: Date): Promise<DigestContent> {
    const { posts, total } = await this.posts.postsBetween(from, to);
    return { posts: posts.map((post) => toDigestPost(post, this.config.SITE_URL)), total };
  }

  private async email(run: RunRow): Promise<DigestEmail> {
    return new DigestEmail(run.content, {
      siteTitle: await this.siteTitle.current(),
      siteUrl: this.config.SITE_URL,
      timeZone: this.config.SITE_TIMEZONE,
      unsubscribeBase: `${this.config.SITE_URL}/api/unsubscribe?token=`,
    });
  }

  /**
   * DIGEST_CONCURRENCY loops each claim DIGEST_BATCH_SIZE subscribers (in id order, one claim
   * at a time per process) and send to them, until no confirmed subscriber is left unclaimed.
   */
  private async sendAll(run: RunRow): Promise<number> {
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
        await this.db.query(`UPDATE digest_runs SET heartbeat_at = now() WHERE week = $1`, [run.week]);
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
        await this.db.query(
          `UPDATE digest_runs SET status = 'done', finished_at = now() WHERE week = $1 AND status = 'running'`,
          [run.week],
        );
      } else {
        // Stopped half-way: let go of the week so the next sweep (here or on a replica) resumes it at once.
        await this.db.query(`UPDATE digest_runs SET heartbeat_at = NULL WHERE week = $1`, [run.week]);
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
    const candidates = await queryRows<{ id: number; email: string }>(
      this.db,
      `SELECT s.id, s.email FROM subscribers s
       WHERE s.status = 'confirmed' AND s.id > $2
         AND NOT EXISTS (SELECT 1 FROM digest_deliveries d WHERE d.week = $1 AND d.subscriber_id = s.id)
       ORDER BY s.id LIMIT $3`,
      [week, cursor, this.config.DIGEST_BATCH_SIZE],
    );
    if (candidates.length === 0) return null;
    const tokens = candidates.map(() => newLinkToken());
    const claimed = await queryRows<{ subscriber_id: number }>(
      this.db,
      `WITH input AS (
         SELECT * FROM unnest($2::int[], $3::text[]) AS i (subscriber_id, hash)
       ), claimed AS (
         INSERT INTO digest_deliveries (week, subscriber_id)
         SELECT $1, i.subscriber_id FROM input i
         WHERE EXISTS (SELECT 1 FROM subscribers s WHERE s.id = i.subscriber_id AND s.status = 'confirmed')
         ORDER BY i.subscriber_id
         ON CONFLICT DO NOTHING
         RETURNING subscriber_id
       )
       INSERT INTO mail_tokens (hash, subscriber_id, purpose)
       SELECT i.hash, i.subscriber_id, 'unsubscribe' FROM input i JOIN claimed c USING (subscriber_id)
       RETURNING subscriber_id`,
      [week, candidates.map((c) => c.id), tokens.map((t) => t.hash)],
    );
    const mine = new Set(claimed.map((row) => row.subscriber_id));
    return {
      lastId: candidates[candidates.length - 1]!.id,
      recipients: candidates
        .map((candidate, i) => ({ id: candidate.id, email: candidate.email, token: tokens[i]!.token }))
        .filter((recipient) => mine.has(recipient.id)),
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
          await this.transport.send(email.for(recipient.email, recipient.token));
          return { id: recipient.id, error: null };
        } catch (error) {
          return { id: recipient.id, error: errorText(error) };
        }
      }),
    );
    const sent = results.filter((r) => r.error === null).map((r) => r.id);
    const failed = results.filter((r): r is { id: number; error: string } => r.error !== null);
    if (sent.length) {
      await this.db.query(
        `UPDATE digest_deliveries SET status = 'sent', sent_at = now(), last_error = NULL
         WHERE week = $1 AND subscriber_id = ANY($2::int[])`,
        [week, sent],
      );
    }
    if (failed.length) {
      const giveUp = attempt >= this.config.DIGEST_MAX_ATTEMPTS;
      this.logger.warn(
        `digest ${week.toISOString()}: ${failed.length} e-mails failed (try ${attempt}${giveUp ? ', giving up' : ''}): ${failed[0]!.error}`,
      );
      await this.db.query(
        `UPDATE digest_deliveries d SET status = 'failed', last_error = f.error,
           next_attempt_at = CASE WHEN $3 THEN NULL ELSE now() + make_interval(secs => $4) END
         FROM unnest($2::int[], $5::text[]) AS f (id, error)
         WHERE d.week = $1 AND d.subscriber_id = f.id`,
        [
          week,
          failed.map((f) => f.id),
          giveUp,
          retryDelayMs(this.config, attempt) / 1000,
          failed.map((f) => f.error),
        ],
      );
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
