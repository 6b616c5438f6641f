import { IdempotencyErrors } from '@blog/contracts';
import { DataSource, type QueryRunner } from 'typeorm';
import { IdempotencyKeys1764300000000, IdempotencyLedger } from '../src/idempotency.js';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ledger on a real PostgreSQL: a key is remembered exactly when its write committed. */
describe('IdempotencyLedger', () => {
  let db: TestDatabase;
  let source: DataSource;
  let ledger: IdempotencyLedger;
  const request = (key: string, fingerprint = 'a'.repeat(64)) => ({ key, fingerprint });
  const notes = async () =>
    (await source.query(`SELECT note FROM notes ORDER BY note`)).map((r: { note: string }) => r.note);
  const addNote =
    (note: string, delayMs = 0) =>
    async (manager: { query: QueryRunner['query'] }) => {
      await manager.query(`INSERT INTO notes (note) VALUES ($1)`, [note]);
      await sleep(delayMs);
      return { note };
    };

  beforeAll(async () => {
    db = await createTestDatabase('idempotency');
    source = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    const runner = source.createQueryRunner();
    await new IdempotencyKeys1764300000000().up(runner);
    await runner.release();
    await source.query(`CREATE TABLE notes (note text)`);
    ledger = new IdempotencyLedger(source);
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('a second request with the key, sent while the first is in its transaction, waits and gets its answer', async () => {
    // The second starts only once the first holds its key (inside its write), whatever the
    // machine's speed: a fixed delay let the second claim the key first on a loaded CI run.
    let inWrite!: () => void;
    const firstHoldsKey = new Promise<void>((resolve) => (inWrite = resolve));
    const [first, second] = await Promise.all([
      ledger.once(request('slow'), async (manager) => {
        inWrite();
        return addNote('slow', 300)(manager);
      }),
      firstHoldsKey.then(() => ledger.once(request('slow'), addNote('slow-again'))),
    ]);
    expect(first).toEqual({ answer: { note: 'slow' }, replayed: false });
    expect(second).toEqual({ answer: { note: 'slow' }, replayed: true });
    expect(await notes()).toEqual(['slow']);
  });

  it('a write that fails is not remembered: the retry runs it', async () => {
    await expect(
      ledger.once(request('fails'), async (manager) => {
        await addNote('rolled back')(manager);
        throw new Error('write failed');
      }),
    ).rejects.toThrow('write failed');
    expect(await ledger.answerOf('fails')).toBeNull();
    expect(await ledger.once(request('fails'), addNote('second try'))).toMatchObject({ replayed: false });
    expect(await notes()).not.toContain('rolled back');
    expect(await notes()).toContain('second try');
  });

  it('another fingerprint under a used key is a 422', async () => {
    await ledger.once(request('k'), addNote('k'));
    await expect(ledger.once(request('k', 'b'.repeat(64)), addNote('k2'))).rejects.toMatchObject({
      body: { status: 422, error: IdempotencyErrors.reused },
    });
    expect(await ledger.answerOf('k')).toEqual({ fingerprint: 'a'.repeat(64), answer: { note: 'k' } });
  });

  it('without a key, write is a plain transaction', async () => {
    expect(await ledger.write(undefined, addNote('plain'))).toEqual({
      answer: { note: 'plain' },
      replayed: false,
    });
    expect(await ledger.write(undefined, addNote('plain'))).toEqual({
      answer: { note: 'plain' },
      replayed: false,
    });
    expect((await notes()).filter((n: string) => n === 'plain')).toHaveLength(2);
  });
});
