import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Password changes, session revocation and two-factor sign-in. */
export class AccountSecurity1764400000000 implements MigrationInterface {
  name = 'AccountSecurity1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE users
        ADD COLUMN password_changed_at timestamptz,
        ADD COLUMN session_version int NOT NULL DEFAULT 0,
        ADD COLUMN totp_secret text,
        ADD COLUMN totp_enabled boolean NOT NULL DEFAULT false,
        ADD COLUMN totp_last_step bigint,
        ADD COLUMN recovery_codes text[] NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE users
        DROP COLUMN password_changed_at, DROP COLUMN session_version, DROP COLUMN totp_secret,
        DROP COLUMN totp_enabled, DROP COLUMN totp_last_step, DROP COLUMN recovery_codes`);
  }
}
