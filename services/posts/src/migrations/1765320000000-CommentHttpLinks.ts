import { httpUrlOrNull } from '@blog/contracts';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = ['author_url', 'remote_object_id', 'remote_actor_uri'] as const;
const BATCH = 1000;

/**
 * The links other servers chose are kept only when httpUrlOrNull takes them (absolute http or
 * https); this clears those stored before, such as a `data:` author URL that readers were served
 * as the author's link. The comment itself stays. Checked by the same function as new links,
 * a batch of rows at a time.
 */
export class CommentHttpLinks1765320000000 implements MigrationInterface {
  name = 'CommentHttpLinks1765320000000';

  async up(q: QueryRunner): Promise<void> {
    for (const column of COLUMNS) {
      for (let after = 0; ;) {
        const rows = (await q.query(
          `SELECT id, ${column} AS value FROM posts.comments
           WHERE id > $1 AND ${column} IS NOT NULL ORDER BY id LIMIT ${BATCH}`,
          [after],
        )) as { id: number; value: string }[];
        if (rows.length === 0) break;
        const bad = rows.filter((row) => httpUrlOrNull(row.value) === null).map((row) => row.id);
        if (bad.length > 0)
          await q.query(`UPDATE posts.comments SET ${column} = NULL WHERE id = ANY($1::int[])`, [bad]);
        after = rows.at(-1)!.id;
      }
    }
  }

  async down(): Promise<void> {
    // The cleared links are not brought back: they were never safe to keep.
  }
}
