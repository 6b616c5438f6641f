import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A change an author makes to an approved comment waits for the owner in `pending_html`, the
 * comment pending meanwhile, while readers keep seeing `content_html`, the approved text.
 */
export class CommentPendingChanges1765310000000 implements MigrationInterface {
  name = 'CommentPendingChanges1765310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE posts.comments
        ADD COLUMN pending_html text,
        ADD CONSTRAINT comments_pending_change_check CHECK (pending_html IS NULL OR status = 'pending')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.comments DROP COLUMN pending_html`);
  }
}
