import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import {
  BACKUP_LIST_LIMIT,
  backupWarning,
  type BackupList,
  type BackupProgressView,
  type BackupRunView,
  type BackupTrigger,
} from '@blog/contracts';
import { RpcError, type ObjectStorage } from '@blog/server-kit';
import {
  openBackupStore,
  pruneBackups,
  takeBackup,
  tryBackupLock,
  type BackupLock,
  type S3Settings,
} from '@blog/server-kit/backup';
import { CronExpressionParser } from 'cron-parser';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { MailClient } from '../archive/mail-client.js';
import type { PostsConfig } from '../config.js';
import { errorMessage } from '../import/import-job.js';
import { POSTS_CONFIG, STORAGE } from '../tokens.js';
import { BackupRunsRepository, type BackupRecord } from './backup-runs.repository.js';

/** Progress is written at most this often: a media step of thousands of files stays cheap. */
const PROGRESS_EVERY_MS = 1000;
/** setTimeout holds at most ~24.8 days; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long a stopping process waits for its running backup. */
const SHUTDOWN_WAIT_MS = 10_000;
const DIED = 'The process running this backup stopped before it finished';

export function toView(run: BackupRecord): BackupRunView {
  return {
    id: run.id,
    state: run.state,
    trigger: run.trigger,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    bytes: run.bytes,
    target: run.target,
    file: run.file,
    ...(run.state === 'failed' ? { error: run.error ?? 'The backup failed' } : {}),
    ...(run.state === 'running' && run.progress ? { progress: run.progress } : {}),
    encrypted: run.encrypted,
  };
}

/** The next time `pattern` fires after `after`, in `timeZone`. */
export function nextScheduled(pattern: string, timeZone: string, after: Date): Date {
  return CronExpressionParser.parse(pattern, { tz: timeZone, currentDate: after, strict: false })
    .next()
    .toDate();
}

/**
 * The blog's own backups (docs/operations.md#backups-and-restore): at each BACKUP_SCHEDULE time
 * and when the owner asks, one backup of every schema and media object into BACKUP_TARGET, then
 * retention (BACKUP_KEEP). One runs at a time across replicas: the run holds a PostgreSQL
 * advisory lock on a connection of its own, so a crashed process frees it with its connection,
 * and a row still `running` with the lock free is a dead run.
 */
@Injectable()
export class BackupJobs implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(BackupJobs.name);
  private timer: NodeJS.Timeout | undefined;
  private lastSlot = 0;
  private current: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly runs: BackupRunsRepository,
    @Inject(STORAGE) private readonly media: ObjectStorage,
    @Inject(POSTS_CONFIG) private readonly config: PostsConfig,
    private readonly mail: MailClient,
  ) {}

  async onModuleInit(): Promise<void> {
    // A run left `running` by a process that died: nobody holds the lock, so it is over.
    const lock = await this.tryLock();
    if (lock) {
      try {
        await this.runs.failRunning(DIED);
      } finally {
        await this.unlock(lock);
      }
    }
    this.schedule();
  }

  /**
   * Gives a run in progress a moment to end (its row gets its last word) before the database
   * closes; a longer one is marked failed at the next start, as if the process had died.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    let wait: NodeJS.Timeout | undefined;
    await Promise.race([this.current, new Promise((done) => (wait = setTimeout(done, SHUTDOWN_WAIT_MS)))]);
    clearTimeout(wait);
  }

  /**
   * Starts a backup now, or answers the one running (on any replica) instead of starting a
   * second. The backup itself goes on in the background; its row tells where it stands.
   */
  async start(): Promise<BackupRunView> {
    const started = await this.begin('owner', null);
    if (started) return started;
    // The lock holder writes its row right after taking the lock: give it a moment.
    for (let tries = 0; tries < 20; tries++) {
      const running = await this.runs.running();
      if (running) return toView(running);
      await new Promise((done) => setTimeout(done, 100));
    }
    throw RpcError.conflict('A backup is starting: try again in a moment');
  }

  async list(): Promise<BackupList> {
    const items = (await this.runs.list(BACKUP_LIST_LIMIT)).map(toView);
    const schedule = this.config.BACKUP_SCHEDULE;
    return {
      items,
      next: schedule ? nextScheduled(schedule, this.config.SITE_TIMEZONE, new Date()).toISOString() : null,
      encrypted: Boolean(this.config.BACKUP_PASSPHRASE),
      warning: backupWarning(items, Boolean(schedule)),
    };
  }

  async get(id: string): Promise<BackupRunView> {
    const run = await this.runs.find(id);
    if (!run) throw RpcError.notFound('No such backup');
    return toView(run);
  }

  /** Where backups go: BACKUP_TARGET, or `${DATA_DIR}/backups`. */
  private get target(): string {
    return this.config.BACKUP_TARGET ?? join(this.config.DATA_DIR, 'backups');
  }

  private get s3(): S3Settings {
    const c = this.config;
    return {
      endpoint: c.BACKUP_S3_ENDPOINT ?? c.S3_ENDPOINT,
      region: c.BACKUP_S3_REGION ?? c.S3_REGION,
      accessKeyId: c.BACKUP_S3_ACCESS_KEY_ID ?? c.S3_ACCESS_KEY_ID,
      secretAccessKey: c.BACKUP_S3_SECRET_ACCESS_KEY ?? c.S3_SECRET_ACCESS_KEY,
    };
  }

  /**
   * Takes the lock and writes the run's row, then runs it in the background. Null when another
   * run holds the lock, or another replica took this schedule slot already.
   */
  private async begin(trigger: BackupTrigger, slot: Date | null): Promise<BackupRunView | null> {
    const lock = await this.tryLock();
    if (!lock) return null;
    let run: BackupRecord | null;
    try {
      await this.runs.failRunning(DIED);
      const id = randomUUID();
      const target = this.target.startsWith('s3://') ? this.target.replace(/\/$/, '') : resolve(this.target);
      const encrypted = Boolean(this.config.BACKUP_PASSPHRASE);
      run = (await this.runs.create({ id, trigger, scheduledFor: slot, target, encrypted }))
        ? await this.runs.find(id)
        : null;
    } catch (error) {
      await this.unlock(lock);
      throw error;
    }
    if (!run) {
      await this.unlock(lock);
      return null;
    }
    const id = run.id;
    this.current = this.run(id, lock).finally(() => {
      this.current = null;
    });
    return toView(run);
  }

  /** One backup then retention; the row gets its outcome, the lock is let go, the owner warned if need be. */
  private async run(id: string, lock: BackupLock): Promise<void> {
    let saving = Promise.resolve();
    let savedAt = 0;
    const onProgress = (progress: BackupProgressView) => {
      if (Date.now() - savedAt < PROGRESS_EVERY_MS) return;
      savedAt = Date.now();
      saving = saving
        .then(() => this.runs.progress(id, progress))
        .catch((error: Error) => this.logger.warn(`backup ${id} progress not saved: ${error.message}`));
    };
    try {
      const store = await openBackupStore(this.target, this.s3);
      const result = await takeBackup(
        {
          databaseUrl: this.config.DATABASE_URL,
          media: this.media,
          site: this.config.SITE_URL ?? null,
          secrets: await this.secrets(),
        },
        store,
        { passphrase: this.config.BACKUP_PASSPHRASE, onProgress },
      );
      // Retention after a good backup only: a failing target never costs the backups it holds.
      await pruneBackups(store, this.config.BACKUP_KEEP, this.config.SITE_TIMEZONE).catch((error) =>
        this.logger.warn(`backup retention failed: ${errorMessage(error)}`),
      );
      await saving;
      await this.runs.finish(id, { state: 'done', bytes: result.bytes, file: result.file });
    } catch (error) {
      const reason = errorMessage(error);
      this.logger.warn(`backup ${id} failed: ${reason}`);
      await saving;
      await this.runs
        .finish(id, { state: 'failed', error: reason.slice(0, 2000) })
        .catch((failure: Error) => this.logger.error(`backup ${id} outcome not saved: ${failure.message}`));
    } finally {
      await this.unlock(lock);
    }
    await this.warnIfStale().catch((error: Error) =>
      this.logger.warn(`backup warning not sent: ${error.message}`),
    );
  }

  /**
   * `npm start` keeps the token secret in DATA_DIR/jwt-secret: the backup carries it, since it
   * seals the two-factor secrets (a restore puts it back). Containers get it from the operator.
   */
  private async secrets(): Promise<Record<string, string>> {
    try {
      const jwtSecret = (await readFile(join(this.config.DATA_DIR, 'jwt-secret'), 'utf8')).trim();
      return jwtSecret ? { jwtSecret } : {};
    } catch {
      return {};
    }
  }

  /** E-mails the owner when the backups need a look: at most once a day, across replicas. */
  private async warnIfStale(): Promise<void> {
    const runs = (await this.runs.list(BACKUP_LIST_LIMIT)).map(toView);
    const warning = backupWarning(runs, Boolean(this.config.BACKUP_SCHEDULE));
    if (!warning || this.stopped) return;
    const zone = this.config.SITE_TIMEZONE;
    if (!(await this.runs.claimWarningDay(zone, warning))) return;
    try {
      await this.mail.backupWarning({ warning, target: this.target });
    } catch (error) {
      await this.runs.releaseWarningDay(zone).catch(() => undefined);
      throw error;
    }
  }

  /** Arms the timer for the schedule's next time; each replica does, the slot is taken once. */
  private schedule(): void {
    const pattern = this.config.BACKUP_SCHEDULE;
    if (!pattern || this.stopped) return;
    // Never the slot just fired again, should the timer wake a moment early.
    const after = new Date(Math.max(Date.now(), this.lastSlot));
    const slot = nextScheduled(pattern, this.config.SITE_TIMEZONE, after);
    const wait = slot.getTime() - Date.now();
    this.timer = setTimeout(
      () => {
        if (wait > MAX_TIMER_MS) return this.schedule();
        this.lastSlot = slot.getTime();
        // A slot that finds a backup still running is skipped: the next one comes.
        void this.begin('schedule', slot)
          .catch((error: Error) => this.logger.warn(`scheduled backup not started: ${error.message}`))
          .finally(() => this.schedule());
      },
      Math.max(0, Math.min(wait, MAX_TIMER_MS)),
    );
    this.timer.unref();
  }

  /** The backup lock on a connection of its own (not the pool's), or null when another run holds it. */
  private tryLock(): Promise<BackupLock | null> {
    return tryBackupLock(this.config.DATABASE_URL);
  }

  private async unlock(lock: BackupLock): Promise<void> {
    await lock.release();
  }
}
