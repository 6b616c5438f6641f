import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The owner's side of the fediverse: the accounts the blog follows get their actor (and a
 * rejected state), the Reader's entries, the blog's own likes and boosts, and notifications.
 */
export class OwnerFediverse1765600000000 implements MigrationInterface {
  name = 'OwnerFediverse1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The avatar copy is made again only when the actor's icon changes.
    await queryRunner.query(`ALTER TABLE remote_actors ADD COLUMN avatar_source varchar(2048)`);

    await queryRunner.query(
      `ALTER TABLE following ADD COLUMN remote_actor_id int REFERENCES remote_actors (id) ON DELETE CASCADE`,
    );
    await queryRunner.query(`ALTER TABLE following DROP CONSTRAINT IF EXISTS following_status_check`);
    await queryRunner.query(
      `ALTER TABLE following ADD CONSTRAINT following_status_check CHECK (status IN ('pending', 'accepted', 'rejected'))`,
    );
    await queryRunner.query(`CREATE INDEX following_status_idx ON following (status, target_uri)`);

    // One entry per Create or Announce; newest first by id (the order they arrived in).
    await queryRunner.query(`
      CREATE TABLE reader_items (
        id bigserial PRIMARY KEY,
        activity_id varchar(2048) NOT NULL UNIQUE,
        object_uri varchar(2048) NOT NULL,
        author_id int NOT NULL REFERENCES remote_actors (id) ON DELETE CASCADE,
        booster_id int REFERENCES remote_actors (id) ON DELETE CASCADE,
        type varchar(16) NOT NULL,
        url varchar(2048),
        name text,
        content_html text NOT NULL,
        summary text,
        sensitive boolean NOT NULL DEFAULT false,
        attachments jsonb NOT NULL DEFAULT '[]',
        published timestamptz NOT NULL,
        in_reply_to varchar(2048),
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX reader_items_object_idx ON reader_items (object_uri)`);
    await queryRunner.query(`CREATE INDEX reader_items_received_idx ON reader_items (received_at)`);

    // The blog's own like or boost of an object: its activity id, which an Undo names.
    await queryRunner.query(`
      CREATE TABLE own_reactions (
        object_uri varchar(2048) NOT NULL,
        kind varchar(8) NOT NULL CHECK (kind IN ('like', 'boost')),
        activity_id varchar(2048) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (object_uri, kind)
      )`);

    await queryRunner.query(`
      CREATE TABLE notifications (
        id bigserial PRIMARY KEY,
        activity_id varchar(2048) NOT NULL UNIQUE,
        kind varchar(16) NOT NULL CHECK (kind IN ('follow', 'mention', 'reply', 'like', 'boost', 'quote')),
        actor_id int NOT NULL REFERENCES remote_actors (id) ON DELETE CASCADE,
        object_uri varchar(2048),
        excerpt varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        read_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX notifications_unread_idx ON notifications (id) WHERE read_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE notifications`);
    await queryRunner.query(`DROP TABLE own_reactions`);
    await queryRunner.query(`DROP TABLE reader_items`);
    await queryRunner.query(`DROP INDEX following_status_idx`);
    await queryRunner.query(`DELETE FROM following WHERE status = 'rejected'`);
    await queryRunner.query(`ALTER TABLE following DROP CONSTRAINT following_status_check`);
    await queryRunner.query(
      `ALTER TABLE following ADD CONSTRAINT following_status_check CHECK (status IN ('pending', 'accepted'))`,
    );
    await queryRunner.query(`ALTER TABLE following DROP COLUMN remote_actor_id`);
    await queryRunner.query(`ALTER TABLE remote_actors DROP COLUMN avatar_source`);
  }
}
