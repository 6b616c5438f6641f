/**
 * The blog's own backups through the real gateway and services
 * (docs/api.md#backups-apiadminbackups): the owner's "Back up now" runs one backup into the
 * target folder and the list shows it; a second request while one runs answers that one; a run
 * whose process died is marked failed; a target that refuses writes fails the backup with its
 * reason (the site keeps answering, the owner is e-mailed once); admins only. Then a schedule
 * of every second: the runs fire one at a time and retention keeps what BACKUP_KEEP says.
 */
import type { BackupList, BackupRunView } from '@blog/contracts';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { ADMIN, api, loginAs, startTestStack, type TestStack } from './support/test-stack.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

const backupFiles = async (folder: string) =>
  (await readdir(join(folder, 'backups')).catch(() => [] as string[])).filter((name) =>
    name.endsWith('.blogbak'),
  );

describe("the owner's backups", () => {
  let stack: TestStack;
  let admin: string;
  let db: pg.Client;
  let target: string;

  const get = async (id: string) =>
    (await api(stack, `/api/admin/backups/${id}`, { token: admin })).json as unknown as BackupRunView;
  const list = async () =>
    (await api(stack, '/api/admin/backups', { token: admin })).json as unknown as BackupList;
  const finished = (id: string) =>
    until(
      `backup ${id}`,
      () => get(id),
      (run) => run.state !== 'running',
    );
  const start = async () => {
    const answer = await api(stack, '/api/admin/backups', { method: 'POST', token: admin });
    expect(answer.status).toBe(202);
    return answer.json as unknown as BackupRunView;
  };

  beforeAll(async () => {
    stack = await startTestStack();
    admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    target = join(stack.env.DATA_DIR!, 'backups');
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  });

  it('are for admins only', async () => {
    expect((await api(stack, '/api/admin/backups')).status).toBe(401);
    expect((await api(stack, '/api/admin/backups', { method: 'POST' })).status).toBe(401);
    await api(stack, '/api/auth/register', { body: { username: 'reader', password: 'reader-password-1' } });
    const reader = await loginAs(stack, 'reader', 'reader-password-1');
    expect((await api(stack, '/api/admin/backups', { token: reader })).status).toBe(403);
    expect((await api(stack, '/api/admin/backups', { method: 'POST', token: reader })).status).toBe(403);
    expect(
      (await api(stack, '/api/admin/backups/00000000-0000-4000-8000-000000000000', { token: reader })).status,
    ).toBe(403);
    // Nothing yet, no schedule (the default outside `npm start`), not encrypted.
    expect(await list()).toEqual({ items: [], next: null, encrypted: false, warning: null });
  });

  it('takes one now: it ends done with its file in the target folder, and the list shows it', async () => {
    const started = await start();
    expect(started).toMatchObject({ id: expect.any(String), state: 'running', trigger: 'owner' });
    const run = await finished(started.id);
    expect(run).toMatchObject({ state: 'done', trigger: 'owner', target, encrypted: false });
    expect(run.bytes).toBeGreaterThan(0);
    expect(run.file).toMatch(/^backups\/blog-\d{8}T\d{6}Z-[0-9a-f]{4}\.blogbak$/);
    expect(run.finishedAt).not.toBeNull();
    expect(run.error).toBeUndefined();
    expect((await readFile(join(target, run.file!))).length).toBeGreaterThan(0);
    const listed = await list();
    expect(listed.items[0]).toEqual(run);
    expect(listed.warning).toBeNull();
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const unknown = await api(stack, '/api/admin/backups/00000000-0000-4000-8000-000000000000', {
      token: admin,
    });
    expect([unknown.status, unknown.json]).toEqual([404, { error: 'No such backup' }]);
    expect((await api(stack, '/api/admin/backups/not-an-id', { token: admin })).status).toBe(400);
  });

  it('never runs two at once: a second request while one runs answers the running one', async () => {
    // A table held by this test holds the backup in its database step.
    await db.query('BEGIN');
    await db.query('LOCK TABLE posts.exports IN ACCESS EXCLUSIVE MODE');
    let first: BackupRunView;
    try {
      first = await start();
      const running = await until(
        'progress',
        () => get(first.id),
        (run) => run.progress !== undefined,
      );
      expect(running).toMatchObject({ state: 'running', progress: { step: 'database' } });
      const second = await start();
      expect(second).toMatchObject({ id: first.id, state: 'running' });
      expect((await list()).items.filter((run) => run.state === 'running')).toHaveLength(1);
    } finally {
      await db.query('COMMIT');
    }
    expect(await finished(first.id)).toMatchObject({ state: 'done' });
  });

  it('marks a run whose process died failed at the next start', async () => {
    const dead = '11111111-1111-4111-8111-111111111111';
    await db.query(
      `INSERT INTO posts.backup_runs (id, state, trigger, target, encrypted, started_at)
       VALUES ($1, 'running', 'schedule', $2, false, now() - interval '1 hour')`,
      [dead, target],
    );
    const run = await start();
    expect(run.id).not.toBe(dead);
    expect(await get(dead)).toMatchObject({ state: 'failed', error: expect.stringMatching(/stopped/) });
    expect(await finished(run.id)).toMatchObject({ state: 'done' });
  });

  it('fails with its reason when the target refuses writes; the site keeps answering; the owner is told once', async () => {
    // A file where the target folder should be.
    await rename(target, `${target}.kept`);
    await writeFile(target, 'not a folder');
    try {
      const run = await finished((await start()).id);
      expect(run.state).toBe('failed');
      expect(run.error).toMatch(/EEXIST|ENOTDIR|not a directory|exists/i);
      expect(run.file).toBeNull();
      expect((await api(stack, '/api/health')).status).toBe(200);
      expect((await api(stack, '/api/posts')).status).toBe(200);
      expect((await list()).warning).toMatch(/^The last backup failed: /);

      const outbox = join(stack.env.DATA_DIR!, 'outbox');
      const warnings = async () => {
        const mails = await Promise.all(
          (await readdir(outbox).catch(() => [] as string[])).map((name) =>
            readFile(join(outbox, name), 'utf8'),
          ),
        );
        return mails.filter((mail) => mail.includes('Backups need a look'));
      };
      const [mail] = await until('the warning e-mail', warnings, (found) => found.length > 0);
      expect(mail).toContain('The last backup failed');
      // Once a day: a second failure sends no second e-mail.
      expect(await finished((await start()).id)).toMatchObject({ state: 'failed' });
      await sleep(500);
      expect(await warnings()).toHaveLength(1);
    } finally {
      await rm(target, { force: true });
      await rename(`${target}.kept`, target);
    }
    // Writable again: the next one is good, and the warning is gone.
    expect(await finished((await start()).id)).toMatchObject({ state: 'done' });
    expect((await list()).warning).toBeNull();
  });
});

describe('scheduled backups', () => {
  let stack: TestStack | undefined;
  afterAll(() => stack?.stop());

  it('fire on BACKUP_SCHEDULE one at a time, and retention keeps what BACKUP_KEEP says', async () => {
    stack = await startTestStack({ BACKUP_SCHEDULE: '* * * * * *', BACKUP_KEEP: '1d' });
    const admin = await loginAs(stack, ADMIN.username, ADMIN.password);
    const target = join(stack.env.DATA_DIR!, 'backups');
    const list = async () =>
      (await api(stack!, '/api/admin/backups', { token: admin })).json as unknown as BackupList;
    const seen = await until(
      'two scheduled backups',
      async () => {
        const answer = await list();
        expect(answer.items.filter((run) => run.state === 'running').length).toBeLessThanOrEqual(1);
        return answer;
      },
      (answer) => answer.items.filter((run) => run.state === 'done').length >= 2,
    );
    expect(seen.items.every((run) => run.trigger === 'schedule')).toBe(true);
    expect(Date.parse(seen.next!) - Date.now()).toBeLessThanOrEqual(2000);
    // Stopped, a run in progress ends first; then one day's newest backup is all that is kept.
    await stack.stop();
    stack = undefined;
    expect(await backupFiles(target)).toHaveLength(1);
  });
});
