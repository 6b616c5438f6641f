import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The public forms' per-IP limits moved to the shared rate_windows table (RateWindows1764800000000,
 * which runs first). Counts in flight at the upgrade start again: at worst one fresh window.
 */
export class FormLimitsToRateWindows1764860000000 implements MigrationInterface {
  name = 'FormLimitsToRateWindows1764860000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE form_limits`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE form_limits (
        key text PRIMARY KEY,
        hits int NOT NULL,
        window_started_at timestamptz NOT NULL
      )`);
  }
}
