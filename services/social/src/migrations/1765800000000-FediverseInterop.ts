import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accepted quotes (FEP-044f): each one's stamp, served at its URL for anyone checking the quote,
 * and a reaction of kind 'quote' on a post, counted with its likes and boosts.
 */
export class FediverseInterop1765800000000 implements MigrationInterface {
  name = 'FediverseInterop1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE reactions DROP CONSTRAINT reactions_kind_check`);
    await queryRunner.query(
      `ALTER TABLE reactions ADD CONSTRAINT reactions_kind_check CHECK (kind IN ('like', 'announce', 'quote'))`,
    );
    await queryRunner.query(`
      CREATE TABLE quote_stamps (
        id varchar(32) PRIMARY KEY,
        activity_id varchar(2048) NOT NULL UNIQUE,
        remote_actor_uri varchar(2048) NOT NULL,
        object_uri varchar(2048) NOT NULL,
        quote_uri varchar(2048) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE quote_stamps`);
    await queryRunner.query(`DELETE FROM reactions WHERE kind = 'quote'`);
    await queryRunner.query(`ALTER TABLE reactions DROP CONSTRAINT reactions_kind_check`);
    await queryRunner.query(
      `ALTER TABLE reactions ADD CONSTRAINT reactions_kind_check CHECK (kind IN ('like', 'announce'))`,
    );
  }
}
