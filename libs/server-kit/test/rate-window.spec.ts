import { DataSource } from 'typeorm';
import { RateWindow, RateWindows1764800000000 } from '../src/rate-window.js';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';

/** The fixed-window limit on a real PostgreSQL, with a clock the test moves. */
describe('RateWindow', () => {
  let db: TestDatabase;
  let source: DataSource;
  let clock = Date.parse('2026-01-01T12:00:00Z');
  let windows: RateWindow;
  const limit = { max: 3, windowSeconds: 900 };
  const refusal = async (key: string) => {
    try {
      await windows.admit(key, limit, 'slow down');
    } catch (error) {
      return (error as { body: unknown }).body;
    }
    return null;
  };

  beforeAll(async () => {
    db = await createTestDatabase('rate_window');
    source = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    const runner = source.createQueryRunner();
    await new RateWindows1764800000000().up(runner);
    await runner.release();
    windows = new RateWindow(source, () => clock);
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('admits max hits, then refuses with 429 and the seconds left in the window until it ends', async () => {
    for (let i = 0; i < 3; i++) expect(await refusal('a')).toBeNull();
    expect(await windows.blockedUntil('a', limit)).toEqual(new Date(clock + 900_000));
    clock += 60_000;
    expect(await refusal('a')).toEqual({ status: 429, error: 'slow down', retryAfter: 840 });
    // Another key has its own window.
    expect(await refusal('b')).toBeNull();
    expect(await windows.blockedUntil('b', limit)).toBeNull();
    clock += 840_000 - 1;
    expect(await refusal('a')).toMatchObject({ status: 429, retryAfter: 1 });
    clock += 1;
    expect(await windows.blockedUntil('a', limit)).toBeNull();
    expect(await refusal('a')).toBeNull();
  });

  it('counts parallel hits atomically', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => refusal('parallel')));
    expect(results.filter((r) => r === null)).toHaveLength(3);
  });

  it('reset clears a key; purge drops windows that have ended', async () => {
    for (let i = 0; i < 4; i++) await refusal('c');
    await windows.reset('c');
    expect(await refusal('c')).toBeNull();
    clock += 901_000;
    await windows.purgeOlderThan(900);
    expect(await source.query(`SELECT key FROM rate_windows`)).toEqual([]);
  });

  it('resetMatching clears the keys with both ends, and only those', async () => {
    for (const key of [
      'login\n10.0.0.1\nbob',
      'login\n10.0.0.2\nbob',
      'login\n10.0.0.1\nbobby',
      'other\nbob',
    ])
      await refusal(key);
    await windows.resetMatching('login\n', '\nbob');
    const left = (await source.query(`SELECT key FROM rate_windows ORDER BY key`)) as { key: string }[];
    expect(left.map((row) => row.key)).toEqual(['login\n10.0.0.1\nbobby', 'other\nbob']);
  });
});
