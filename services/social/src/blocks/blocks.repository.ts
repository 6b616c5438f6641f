import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { BlockView } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

/** An account block (actor) or a server block (domain). */
export type BlockTarget = { actor: string; domain?: undefined } | { domain: string; actor?: undefined };

interface BlockRow {
  id: number;
  actor_uri: string | null;
  domain: string | null;
  created_at: Date;
}

const view = (row: BlockRow): BlockView => ({
  id: row.id,
  actor: row.actor_uri,
  domain: row.domain,
  createdAt: row.created_at.toISOString(),
});

// A server block covers its sub-domains (hostInDomain in @blog/contracts says the same).
// Domains are [a-z0-9.-] only (blockInputSchema), so LIKE sees no wildcard in them.
const HOST_IN_DOMAIN = (host: string, domain: string) =>
  `(${host} = ${domain} OR ${host} LIKE '%.' || ${domain})`;

/** Blocks (blocks), and the followers a block removes. */
export abstract class BlocksRepository {
  /** Stores the block and removes the followers it covers, in one transaction; undefined if it exists already. */
  abstract add(target: BlockTarget): Promise<{ block: BlockView; removedFollowers: number } | undefined>;
  abstract list(): Promise<BlockView[]>;
  abstract remove(id: number): Promise<boolean>;
  abstract isBlocked(actorUri: string, host: string): Promise<boolean>;
}

@Injectable()
export class PostgresBlocksRepository extends BlocksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  add(target: BlockTarget) {
    return this.db.transaction(async (manager) => {
      const [row] = await queryRows<BlockRow>(
        manager,
        `INSERT INTO blocks (actor_uri, domain) VALUES ($1, $2) ON CONFLICT DO NOTHING
         RETURNING id, actor_uri, domain, created_at`,
        [target.actor ?? null, target.domain ?? null],
      );
      if (!row) return undefined;
      const removed = await queryRows<{ id: number }>(
        manager,
        target.actor !== undefined
          ? `DELETE FROM followers f USING remote_actors a
             WHERE f.remote_actor_id = a.id AND a.uri = $1 RETURNING f.id`
          : `DELETE FROM followers f USING remote_actors a
             WHERE f.remote_actor_id = a.id AND ${HOST_IN_DOMAIN('a.host', '$1')} RETURNING f.id`,
        [target.actor ?? target.domain],
      );
      return { block: view(row), removedFollowers: removed.length };
    });
  }

  async list(): Promise<BlockView[]> {
    const rows = await queryRows<BlockRow>(
      this.db,
      `SELECT id, actor_uri, domain, created_at FROM blocks ORDER BY created_at DESC, id DESC`,
    );
    return rows.map(view);
  }

  async remove(id: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(this.db, `DELETE FROM blocks WHERE id = $1 RETURNING id`, [
      id,
    ]);
    return rows.length > 0;
  }

  async isBlocked(actorUri: string, host: string): Promise<boolean> {
    const [row] = await queryRows<{ blocked: boolean }>(
      this.db,
      `SELECT EXISTS (SELECT 1 FROM blocks WHERE actor_uri = $1
         OR (domain IS NOT NULL AND ${HOST_IN_DOMAIN('$2', 'domain')})) AS blocked`,
      [actorUri, host],
    );
    return row!.blocked;
  }
}
