import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Posts and their ordered media. Search: a weighted tsvector (title A, tags B, content C,
 * English stemming, accents removed) with a GIN index, and a trigram index on title and
 * tags for typo tolerance. unaccent and array_to_string are not IMMUTABLE, so generated
 * columns go through small immutable wrappers.
 */
export class CreatePosts1763810000000 implements MigrationInterface {
  name = 'CreatePosts1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA posts`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA posts`);
    await q.query(`
      CREATE FUNCTION posts.f_unaccent(text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT posts.unaccent('posts.unaccent'::regdictionary, $1) $$`);
    await q.query(`
      CREATE FUNCTION posts.f_tags_text(text[]) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT coalesce(array_to_string($1, ' '), '') $$`);
    await q.query(`
      CREATE FUNCTION posts.f_lower_tags(text[]) RETURNS text[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT coalesce(array_agg(lower(t)), '{}') FROM unnest($1) AS t $$`);
    await q.query(`
      CREATE TABLE posts.posts (
        id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        title varchar(200) NOT NULL,
        content text NOT NULL DEFAULT '',
        slug varchar(120) NOT NULL,
        category varchar(80) NOT NULL,
        submenu1 varchar(80) NOT NULL,
        submenu2 varchar(80),
        tags text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        tags_lower text[] GENERATED ALWAYS AS (posts.f_lower_tags(tags)) STORED,
        search tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('english', posts.f_unaccent(title)), 'A') ||
          setweight(to_tsvector('english', posts.f_unaccent(posts.f_tags_text(tags))), 'B') ||
          setweight(to_tsvector('english', posts.f_unaccent(content)), 'C')
        ) STORED,
        typo_text text GENERATED ALWAYS AS (lower(posts.f_unaccent(title || ' ' || posts.f_tags_text(tags)))) STORED
      )`);
    await q.query(`CREATE UNIQUE INDEX posts_slug_key ON posts.posts (slug)`);
    await q.query(`CREATE INDEX posts_created_idx ON posts.posts (created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX posts_placement_idx ON posts.posts (category, submenu1, submenu2, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX posts_tags_idx ON posts.posts USING gin (tags_lower)`);
    await q.query(`CREATE INDEX posts_search_idx ON posts.posts USING gin (search)`);
    await q.query(`CREATE INDEX posts_typo_idx ON posts.posts USING gin (typo_text posts.gin_trgm_ops)`);
    await q.query(`
      CREATE TABLE posts.media_items (
        id uuid PRIMARY KEY,
        post_id int NOT NULL REFERENCES posts.posts (id) ON DELETE CASCADE,
        position int NOT NULL,
        type varchar(16) NOT NULL CHECK (type IN ('image', 'video', 'youtube')),
        status varchar(16) NOT NULL DEFAULT 'ready' CHECK (status IN ('pending', 'ready', 'failed')),
        storage_key text UNIQUE,
        name text,
        mime_type varchar(100),
        size_bytes bigint,
        youtube_url text,
        youtube_id varchar(32),
        is_shorts boolean NOT NULL DEFAULT false,
        title text,
        crop_x double precision,
        crop_y double precision,
        crop_scale double precision,
        cropped_preview_key text,
        thumbnail_key text,
        width int,
        height int,
        error text
      )`);
    await q.query(`CREATE INDEX media_items_post_idx ON posts.media_items (post_id, position)`);
    await q.query(
      `CREATE INDEX media_items_status_idx ON posts.media_items (status) WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.media_items`);
    await q.query(`DROP TABLE posts.posts`);
    await q.query(`DROP FUNCTION posts.f_lower_tags(text[])`);
    await q.query(`DROP FUNCTION posts.f_tags_text(text[])`);
    await q.query(`DROP FUNCTION posts.f_unaccent(text)`);
  }
}
