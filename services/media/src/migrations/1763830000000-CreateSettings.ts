import type { MigrationInterface, QueryRunner } from 'typeorm';

/** One row of image settings (id 1); the defaults of docs/product.md#limits-and-timings until the admin saves. */
export class CreateSettings1763830000000 implements MigrationInterface {
  name = 'CreateSettings1763830000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE settings (
        id int PRIMARY KEY CHECK (id = 1),
        image_max_size int NOT NULL DEFAULT 800 CHECK (image_max_size BETWEEN 400 AND 2000),
        image_quality int NOT NULL DEFAULT 85 CHECK (image_quality BETWEEN 50 AND 95),
        image_auto_optimize boolean NOT NULL DEFAULT true,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`INSERT INTO settings (id) VALUES (1)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE settings`);
  }
}
