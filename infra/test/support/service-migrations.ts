import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@blog/server-kit';
import type { MigrationList } from '@blog/server-kit/backup';
import { MIGRATIONS as AUTH } from '../../../services/auth/src/migrations/index.js';
import { MIGRATIONS as MAIL } from '../../../services/mail/src/migrations/index.js';
import { MIGRATIONS as MEDIA } from '../../../services/media/src/migrations/index.js';
import { MIGRATIONS as POSTS } from '../../../services/posts/src/migrations/index.js';
import { MIGRATIONS as SOCIAL } from '../../../services/social/src/migrations/index.js';

/** Each service schema's migrations, as a restore runs them (scripts/restore.mjs has the built ones). */
export const SERVICE_MIGRATIONS: Record<string, MigrationList> = {
  auth: AUTH,
  posts: POSTS,
  media: MEDIA,
  mail: MAIL,
  social: SOCIAL,
};

/** The previous version's database, as a test plays it: the posts schema's last migration undone (its own `down`). */
export async function undoLastPostsMigration(url: string): Promise<void> {
  const source = await new DataSource({
    ...dataSourceOptions({ url, schema: 'posts', entities: [], migrations: POSTS, poolSize: 1 }),
    migrationsRun: false,
  }).initialize();
  try {
    await source.undoLastMigration();
  } finally {
    await source.destroy();
  }
}
