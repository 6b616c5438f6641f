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
