import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ActorKeyKind, Jwk, JwkPair } from '@blog/contracts';
import { DataSource } from 'typeorm';
import { queryRows } from '@blog/server-kit';

/** One stored key pair. */
export interface ActorKeyPair extends JwkPair {
  kind: ActorKeyKind;
}

/** The blog actor's key pairs (actor_keys), one per kind. */
export abstract class ActorKeysRepository {
  abstract all(): Promise<ActorKeyPair[]>;
  /** Stores the pair unless one of its kind is stored already (then the stored one stays). */
  abstract addIfAbsent(pair: ActorKeyPair): Promise<void>;
}

@Injectable()
export class PostgresActorKeysRepository extends ActorKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async all(): Promise<ActorKeyPair[]> {
    const rows = await queryRows<{ kind: ActorKeyKind; public_jwk: Jwk; private_jwk: Jwk }>(
      this.db,
      `SELECT kind, public_jwk, private_jwk FROM actor_keys ORDER BY kind DESC`,
    );
    return rows.map((row) => ({ kind: row.kind, publicJwk: row.public_jwk, privateJwk: row.private_jwk }));
  }

  async addIfAbsent(pair: ActorKeyPair): Promise<void> {
    await this.db.query(
      `INSERT INTO actor_keys (kind, public_jwk, private_jwk) VALUES ($1, $2, $3) ON CONFLICT (kind) DO NOTHING`,
      [pair.kind, JSON.stringify(pair.publicJwk), JSON.stringify(pair.privateJwk)],
    );
  }
}
