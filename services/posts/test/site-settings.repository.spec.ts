import { createTestDatabase, type TestDatabase } from '@blog/server-kit/testing';
import { DataSource } from 'typeorm';
import { PostgresSiteSettingsRepository, SITE_CHANNEL } from '../src/site/site-settings.repository.js';

/** The site settings' LISTEN connection on a real PostgreSQL: changes announced, a lost connection reported once. */
describe('PostgresSiteSettingsRepository.listen', () => {
  let db: TestDatabase;
  let source: DataSource;
  let repository: PostgresSiteSettingsRepository;
  const until = async (done: () => boolean) => {
    const start = Date.now();
    while (!done()) {
      if (Date.now() - start > 5000) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase('site_listen');
    source = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    repository = new PostgresSiteSettingsRepository(source);
  });
  afterAll(async () => {
    await source?.destroy();
    await db?.drop();
  });

  it('calls back on each NOTIFY until stopped, and reports a dropped connection once', async () => {
    let changes = 0;
    const lost: string[] = [];
    const stop = await repository.listen(
      () => changes++,
      (error) => lost.push(error.message),
    );
    await source.query(`SELECT pg_notify($1, '2')`, [SITE_CHANNEL]);
    await until(() => changes === 1);

    await source.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
      [`LISTEN ${SITE_CHANNEL}`],
    );
    await until(() => lost.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lost).toHaveLength(1);
    stop(); // already released: nothing happens

    const again = await repository.listen(
      () => changes++,
      (error) => lost.push(error.message),
    );
    again();
    await source.query(`SELECT pg_notify($1, '3')`, [SITE_CHANNEL]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(changes).toBe(1);
    expect(lost).toHaveLength(1);
  });
});
