import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every post by e-mail. `posts.send_by_email`: the post is to be e-mailed to the each-post
 * subscribers when it is published. `posts.newsletter_events`, a transactional outbox like
 * federation_events: a row is written in the same transaction as the save that publishes such a
 * post, due at its publish time, and marked done once the mail service has taken it over. One
 * row per post at most (the unique key), so a post is never owed twice; it goes with its post.
 */
export class NewsletterEvents1765400000000 implements MigrationInterface {
  name = 'NewsletterEvents1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.posts ADD COLUMN send_by_email boolean NOT NULL DEFAULT false`);
    await q.query(`
      CREATE TABLE posts.newsletter_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        post_id integer NOT NULL UNIQUE REFERENCES posts.posts (id) ON DELETE CASCADE,
        due_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        done_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX newsletter_events_due_idx ON posts.newsletter_events (due_at, created_at) WHERE done_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.newsletter_events`);
    await q.query(`ALTER TABLE posts.posts DROP COLUMN send_by_email`);
  }
}
