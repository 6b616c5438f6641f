import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The typo fallback of search, made fast. Matching a misspelt word against every post's title
 * and tags (the trigram index on posts.typo_text) read thousands of wide post rows at 100,000
 * posts. Instead:
 * - search_words holds each distinct title and tag word once (a few thousand rows on a real
 *   blog) with a trigram index: a misspelt word finds its correct spellings there;
 * - post_words lists (word, created_at, post) for every post, so the newest posts holding
 *   those words come from one btree, with no read of the posts table.
 * A trigger keeps both in step with posts (deletes cascade). Words of deleted posts stay in
 * search_words: they match no post_words row, so they find nothing, and the table stays small.
 */
export class TypoSearchWords1763840000000 implements MigrationInterface {
  name = 'TypoSearchWords1763840000000';

  async up(q: QueryRunner): Promise<void> {
    // Words of three or more characters with a letter: numbers ("notes 12") have no typos to fix.
    await q.query(`
      CREATE FUNCTION posts.f_typo_words(text) RETURNS text[]
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT coalesce(array_agg(DISTINCT w), '{}') FROM regexp_split_to_table($1, '[^[:alnum:]]+') AS w
            WHERE length(w) >= 3 AND w ~ '[[:alpha:]]' $$`);
    await q.query(`CREATE TABLE posts.search_words (word text PRIMARY KEY)`);
    await q.query(
      `CREATE INDEX search_words_trgm_idx ON posts.search_words USING gin (word posts.gin_trgm_ops)`,
    );
    await q.query(`
      CREATE TABLE posts.post_words (
        word text NOT NULL,
        created_at timestamptz NOT NULL,
        post_id int NOT NULL REFERENCES posts.posts (id) ON DELETE CASCADE,
        PRIMARY KEY (word, created_at, post_id)
      )`);
    await q.query(`CREATE INDEX post_words_post_idx ON posts.post_words (post_id)`);
    await q.query(`
      CREATE FUNCTION posts.t_post_words() RETURNS trigger
      LANGUAGE plpgsql
      AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          DELETE FROM posts.post_words WHERE post_id = NEW.id;
        END IF;
        INSERT INTO posts.post_words (word, created_at, post_id)
          SELECT w, NEW.created_at, NEW.id FROM unnest(posts.f_typo_words(NEW.typo_text)) AS w;
        INSERT INTO posts.search_words (word)
          SELECT w FROM unnest(posts.f_typo_words(NEW.typo_text)) AS w
          ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER posts_words_trg AFTER INSERT OR UPDATE OF title, tags, created_at ON posts.posts
      FOR EACH ROW EXECUTE FUNCTION posts.t_post_words()`);
    await q.query(`
      INSERT INTO posts.post_words (word, created_at, post_id)
        SELECT w, p.created_at, p.id FROM posts.posts p, unnest(posts.f_typo_words(p.typo_text)) AS w`);
    await q.query(
      `INSERT INTO posts.search_words (word) SELECT DISTINCT word FROM posts.post_words ON CONFLICT DO NOTHING`,
    );
    await q.query(`DROP INDEX posts.posts_typo_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX posts_typo_idx ON posts.posts USING gin (typo_text posts.gin_trgm_ops)`);
    await q.query(`DROP TRIGGER posts_words_trg ON posts.posts`);
    await q.query(`DROP FUNCTION posts.t_post_words()`);
    await q.query(`DROP TABLE posts.post_words`);
    await q.query(`DROP TABLE posts.search_words`);
    await q.query(`DROP FUNCTION posts.f_typo_words(text)`);
  }
}
