import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUsers1763800000000 implements MigrationInterface {
  name = 'CreateUsers1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        username varchar(32) NOT NULL,
        role varchar(32) NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_username_lower_key ON users (lower(username))`);
    await queryRunner.query(`CREATE INDEX users_role_idx ON users (role)`);
    await queryRunner.query(`
      CREATE TABLE login_attempts (
        key text PRIMARY KEY,
        failures int NOT NULL,
        window_started_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE login_attempts`);
    await queryRunner.query(`DROP TABLE users`);
  }
}
