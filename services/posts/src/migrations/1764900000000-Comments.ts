import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Comments under posts: a signed-in reader's, or a fediverse reply's (then
 * `remote_object_id` is the Note's id that its Update and Delete name). One level of threads:
 * `parent_id` is a top-level comment of the same post (the service keeps it so). Moderation
 * settings: the site-wide one in the one-row `comment_settings` (with when the owner was last
 * mailed), each post's own in `comment_post_settings`.
 */
export class Comments1764900000000 implements MigrationInterface {
  name = 'Comments1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE posts.comments (
        id serial PRIMARY KEY,
        post_id integer NOT NULL REFERENCES posts.posts (id) ON DELETE CASCADE,
        parent_id integer REFERENCES posts.comments (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'spam')),
        content_html text NOT NULL,
        author_name text NOT NULL,
        author_handle text,
        author_url text,
        author_avatar_key text,
        local boolean NOT NULL,
        user_id uuid,
        remote_object_id text UNIQUE,
        remote_actor_uri text,
        via text,
        source_id text UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX comments_post_idx ON posts.comments (post_id, status, created_at)`);
    await q.query(`CREATE INDEX comments_status_idx ON posts.comments (status, created_at DESC)`);
    await q.query(`CREATE INDEX comments_user_idx ON posts.comments (user_id) WHERE user_id IS NOT NULL`);
    await q.query(
      `CREATE INDEX comments_actor_idx ON posts.comments (remote_actor_uri) WHERE remote_actor_uri IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE posts.comment_settings (
        id smallint PRIMARY KEY CHECK (id = 1),
        auto_approve_known boolean NOT NULL DEFAULT false,
        last_owner_mail_at timestamptz
      )`);
    await q.query(`INSERT INTO posts.comment_settings (id) VALUES (1)`);
    await q.query(`
      CREATE TABLE posts.comment_post_settings (
        post_id integer PRIMARY KEY REFERENCES posts.posts (id) ON DELETE CASCADE,
        auto_approve_known boolean NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.comment_post_settings`);
    await q.query(`DROP TABLE posts.comment_settings`);
    await q.query(`DROP TABLE posts.comments`);
  }
}
