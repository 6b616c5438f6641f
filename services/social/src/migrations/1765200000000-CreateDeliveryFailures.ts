import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateDeliveryFailures1765200000000 implements MigrationInterface {
  name = 'CreateDeliveryFailures1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Deliveries given up, one row per remote server (the inbox's host), for the owner to see.
    await queryRunner.query(`
      CREATE TABLE delivery_failures (
        host varchar(300) PRIMARY KEY,
        inbox varchar(2048) NOT NULL,
        last_activity_id varchar(2048),
        reason varchar(16) NOT NULL CHECK (reason IN ('gone', 'expired', 'dropped')),
        status_code int,
        error text,
        first_failed_at timestamptz NOT NULL DEFAULT now(),
        last_failed_at timestamptz NOT NULL DEFAULT now(),
        count int NOT NULL DEFAULT 1
      )`);
    await queryRunner.query(`CREATE INDEX delivery_failures_last_idx ON delivery_failures (last_failed_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE delivery_failures`);
  }
}
