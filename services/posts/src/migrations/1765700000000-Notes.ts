import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notes: the owner's short posts, beside posts but not among them (no category, no digest, no
 * e-mail). A deleted note keeps its row with `deleted_at`, so its page answers 410 and its
 * Delete can be sent. `mention_*`: the author of what a reply answers (resolved when written).
 *
 * The federation's outbox carries them too: an event names a post, a note or an owner's reply
 * to a fediverse comment (exactly one). `comments.by_owner`: a comment the blog's owner wrote
 * from the dashboard, shown as the author's; `answers_id`: the comment it answers (threads are one
 * level deep, so its parent is that comment's top one).
 */
export class Notes1765700000000 implements MigrationInterface {
  name = 'Notes1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE posts.notes (
        id serial PRIMARY KEY,
        content text NOT NULL,
        content_html text NOT NULL,
        in_reply_to text,
        mention_actor_uri text,
        mention_handle text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        deleted_at timestamptz
      )`);
    await q.query(`CREATE INDEX notes_visible_idx ON posts.notes (id DESC) WHERE deleted_at IS NULL`);
    await q.query(`ALTER TABLE posts.federation_events ALTER COLUMN post_id DROP NOT NULL`);
    await q.query(
      `ALTER TABLE posts.federation_events ADD COLUMN note_id integer, ADD COLUMN comment_id integer`,
    );
    await q.query(
      `ALTER TABLE posts.federation_events ADD CONSTRAINT federation_events_one_object
         CHECK (num_nonnulls(post_id, note_id, comment_id) = 1)`,
    );
    await q.query(
      `CREATE INDEX federation_events_note_idx ON posts.federation_events (note_id, created_at) WHERE note_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX federation_events_comment_idx ON posts.federation_events (comment_id, created_at) WHERE comment_id IS NOT NULL`,
    );
    await q.query(
      `ALTER TABLE posts.comments ADD COLUMN by_owner boolean NOT NULL DEFAULT false,
         ADD COLUMN answers_id integer REFERENCES posts.comments (id) ON DELETE SET NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.comments DROP COLUMN by_owner, DROP COLUMN answers_id`);
    await q.query(`DELETE FROM posts.federation_events WHERE post_id IS NULL`);
    await q.query(`ALTER TABLE posts.federation_events DROP CONSTRAINT federation_events_one_object`);
    await q.query(`ALTER TABLE posts.federation_events DROP COLUMN note_id, DROP COLUMN comment_id`);
    await q.query(`ALTER TABLE posts.federation_events ALTER COLUMN post_id SET NOT NULL`);
    await q.query(`DROP TABLE posts.notes`);
  }
}
