import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ids of export download links already used: a link works once across every gateway
 * replica. A row is kept until its link has expired (then it could not be used anyway).
 */
export class UsedExportLinks1764870000000 implements MigrationInterface {
  name = 'UsedExportLinks1764870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE posts.used_export_links (id uuid PRIMARY KEY, expires_at timestamptz NOT NULL)`,
    );
    await q.query(`CREATE INDEX used_export_links_expires_idx ON posts.used_export_links (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE posts.used_export_links`);
  }
}
