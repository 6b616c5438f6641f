// Every service's committed migrations, by the PostgreSQL schema they make: what a restore
// replays up to a backup's list, and what `npm run upgrade` runs.
import { MIGRATIONS as auth } from '../../services/auth/dist/migrations/index.js';
import { MIGRATIONS as mail } from '../../services/mail/dist/migrations/index.js';
import { MIGRATIONS as media } from '../../services/media/dist/migrations/index.js';
import { MIGRATIONS as posts } from '../../services/posts/dist/migrations/index.js';
import { MIGRATIONS as social } from '../../services/social/dist/migrations/index.js';

export const SERVICE_MIGRATIONS = { auth, posts, media, mail, social };
