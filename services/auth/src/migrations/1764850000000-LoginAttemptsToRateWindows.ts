import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in and registration limits moved to the shared rate_windows table (RateWindows1764800000000,
 * which runs first). Counts in flight at the upgrade start again: at worst one fresh window.
 */
export class LoginAttemptsToRateWindows1764850000000 implements MigrationInterface {
  name = 'LoginAttemptsToRateWindows1764850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE login_attempts`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE login_attempts (
        key text PRIMARY KEY,
        failures int NOT NULL,
        window_started_at timestamptz NOT NULL
      )`);
  }
}
