import { httpUrlOrNull } from '@blog/contracts';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = ['url', 'icon_url', 'shared_inbox'] as const;
const BATCH = 1000;

/**
 * A remote actor's profile page, avatar and shared inbox are kept only when httpUrlOrNull takes
 * them (absolute http or https); this clears any stored before, the same function checking them,
 * a batch of rows at a time. Ids and inboxes were always refused unless http(s).
 */
export class RemoteActorHttpLinks1765330000000 implements MigrationInterface {
  name = 'RemoteActorHttpLinks1765330000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const column of COLUMNS) {
      for (let after = 0; ;) {
        const rows = (await queryRunner.query(
          `SELECT id, ${column} AS value FROM remote_actors
           WHERE id > $1 AND ${column} IS NOT NULL ORDER BY id LIMIT ${BATCH}`,
          [after],
        )) as { id: number; value: string }[];
        if (rows.length === 0) break;
        const bad = rows.filter((row) => httpUrlOrNull(row.value) === null).map((row) => row.id);
        if (bad.length > 0)
          await queryRunner.query(`UPDATE remote_actors SET ${column} = NULL WHERE id = ANY($1::int[])`, [
            bad,
          ]);
        after = rows.at(-1)!.id;
      }
    }
  }

  async down(): Promise<void> {
    // The cleared links are not brought back: they were never safe to keep.
  }
}
