import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Readers choose how often they get mail (existing subscribers keep the weekly digest), an
 * address that keeps bouncing is marked, links to the preferences page have their own token
 * purpose, and a CSV import keeps its report while it runs.
 */
export class SubscriberPreferences1764900000000 implements MigrationInterface {
  name = 'SubscriberPreferences1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE subscribers
        ADD COLUMN frequency text NOT NULL DEFAULT 'weekly' CHECK (frequency IN ('each-post', 'weekly')),
        ADD COLUMN bounced_at timestamptz NULL,
        ADD COLUMN bounce_count int NOT NULL DEFAULT 0`);
    await queryRunner.query(
      `CREATE INDEX subscribers_bounced_idx ON subscribers (id) WHERE bounced_at IS NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE mail_tokens DROP CONSTRAINT mail_tokens_purpose_check`);
    await queryRunner.query(
      `ALTER TABLE mail_tokens ADD CONSTRAINT mail_tokens_purpose_check
         CHECK (purpose IN ('confirm', 'unsubscribe', 'preferences'))`,
    );
    await queryRunner.query(`
      CREATE TABLE subscriber_imports (
        id uuid PRIMARY KEY,
        state varchar(16) NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done', 'failed')),
        consented boolean NOT NULL,
        frequency text NOT NULL CHECK (frequency IN ('each-post', 'weekly')),
        lines int NOT NULL DEFAULT 0,
        added int NOT NULL DEFAULT 0,
        confirmed int NOT NULL DEFAULT 0,
        pending int NOT NULL DEFAULT 0,
        duplicates int NOT NULL DEFAULT 0,
        invalid int NOT NULL DEFAULT 0,
        errors jsonb NOT NULL DEFAULT '[]',
        error text,
        started_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE subscriber_imports`);
    await queryRunner.query(`DELETE FROM mail_tokens WHERE purpose = 'preferences'`);
    await queryRunner.query(`ALTER TABLE mail_tokens DROP CONSTRAINT mail_tokens_purpose_check`);
    await queryRunner.query(
      `ALTER TABLE mail_tokens ADD CONSTRAINT mail_tokens_purpose_check CHECK (purpose IN ('confirm', 'unsubscribe'))`,
    );
    await queryRunner.query(`DROP INDEX subscribers_bounced_idx`);
    await queryRunner.query(
      `ALTER TABLE subscribers DROP COLUMN frequency, DROP COLUMN bounced_at, DROP COLUMN bounce_count`,
    );
  }
}
