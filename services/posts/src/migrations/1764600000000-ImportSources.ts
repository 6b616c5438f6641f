import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bringing a blog in and taking it out. A post imported from elsewhere keeps the
 * identity it had there (`source_id`: "wxr:<guid>", "ghost:<id>", "blog:<id>"), so importing
 * the same file again updates it instead of adding a copy; its old URLs (paths such as
 * /?p=123 or /2019/05/12/my-post/) answer 301 to its page. Each import is a row the job
 * queue works from and the dashboard polls.
 */
export class ImportSources1764600000000 implements MigrationInterface {
  name = 'ImportSources1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE posts.posts ADD COLUMN source_id varchar(300)`);
    await q.query(`CREATE UNIQUE INDEX posts_source_id_key ON posts.posts (source_id)`);
    await q.query(`
      CREATE TABLE posts.post_old_paths (
        path varchar(1000) PRIMARY KEY,
        post_id int NOT NULL REFERENCES posts.posts (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX post_old_paths_post_idx ON posts.post_old_paths (post_id)`);
    await q.query(`
      CREATE TABLE posts.imports (
        id uuid PRIMARY KEY,
        state varchar(16) NOT NULL,
        format varchar(16),
        file_key text NOT NULL,
        options jsonb NOT NULL DEFAULT '{}',
        report jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.imports`);
    await q.query(`DROP TABLE posts.post_old_paths`);
    await q.query(`ALTER TABLE posts.posts DROP COLUMN source_id`);
  }
}
