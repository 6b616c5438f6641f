import { createIdempotencyTable } from '@blog/server-kit';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Keyed writes' keys and answers (Idempotency-Key), kept a day so a retry is never done twice. */
export class IdempotencyKeys1764300000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await createIdempotencyTable(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
