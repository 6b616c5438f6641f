import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the blog owes its followers, a transactional outbox: each row is written in
 * the same transaction as the post change that calls for it, due at the post's publish time (a
 * scheduled post's Create waits for its minute), and marked done once the social service has
 * queued its delivery. `post_id` has no foreign key: a deleted post's Delete outlives its row.
 */
export class FederationEvents1765110000000 implements MigrationInterface {
  name = 'FederationEvents1765110000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE posts.federation_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        post_id integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('create', 'update', 'delete')),
        due_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        done_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX federation_events_due_idx ON posts.federation_events (due_at, created_at) WHERE done_at IS NULL`,
    );
    await q.query(`CREATE INDEX federation_events_post_idx ON posts.federation_events (post_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.federation_events`);
  }
}
