/**
 * An import's tries, counted in its row: one whose tries crashed is failed at start-up (a
 * failed one is not tried again), and a try past the wall-clock budget counts as one.
 */
import pg from 'pg';
import { useHostileImportStack, wxr, wxrItem } from './support/hostile-import.js';
import type { TestStack } from './support/test-stack.js';

// At the file's top, so the describe's own afterAll (its database client) runs before the stack stops.
const rig = useHostileImportStack();
const { upload, finished } = rig;
let stack: TestStack;
beforeAll(() => ({ stack } = rig));

describe('tries', () => {
  let db: pg.Client;
  beforeAll(async () => {
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
  });
  const restartPosts = async (env: Record<string, string>) => {
    await stack.services.posts.close();
    Object.assign(stack.env, env);
    await stack.restartPosts();
  };

  it('at start-up, an import whose three tries crashed ends failed; a failed one is not tried again', async () => {
    const row = (id: string, state: string, attempts: number) =>
      db.query(
        `INSERT INTO posts.imports (id, state, format, file_key, options, report, attempts) VALUES ($1, $2, 'wxr', $3, '{}', '{}', $4)`,
        [id, state, `private/imports/${id}`, attempts],
      );
    const crashed = '00000000-0000-4000-8000-00000000c001';
    const failed = '00000000-0000-4000-8000-00000000c002';
    await row(crashed, 'running', 3);
    await row(failed, 'failed', 1);
    await restartPosts({});
    const report = await finished(crashed, 20_000);
    expect(report).toMatchObject({
      state: 'failed',
      reason: 'The import stopped after 3 tries that crashed or ran past the time budget',
    });
    const rows = await db.query(
      `SELECT id, state, attempts FROM posts.imports WHERE id = ANY($1) ORDER BY id`,
      [[crashed, failed]],
    );
    expect(rows.rows).toEqual([
      { id: crashed, state: 'failed', attempts: 4 },
      { id: failed, state: 'failed', attempts: 1 },
    ]);
  }, 120_000);

  it('a try past the time budget counts as one; the third ends the import failed, with the reason', async () => {
    await restartPosts({ IMPORT_BUDGET_MS: '1' });
    try {
      const id = await upload('slow.xml', wxr(wxrItem(61, 'Never in time')));
      const report = await finished(id, 60_000);
      expect(report).toMatchObject({
        state: 'failed',
        reason: 'The import ran past its time budget of 1 ms (try 3 of 3)',
      });
      const { rows } = await db.query(`SELECT attempts FROM posts.imports WHERE id = $1`, [id]);
      expect(rows).toEqual([{ attempts: 3 }]);
    } finally {
      await restartPosts({ IMPORT_BUDGET_MS: String(2 * 3_600_000) });
    }
  }, 120_000);
});
