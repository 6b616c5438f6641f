import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { OwnReactionKind } from '@blog/contracts';
import { queryRows } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import type { AccountColumns } from '../followers/remote-actors.service.js';

/** A cached picture of an entry: the media service's key of the blog's own copy. */
export interface StoredAttachment {
  key: string;
  mediaType: string;
  alt: string;
}

export interface ReaderRowInput {
  activityId: string;
  objectUri: string;
  authorId: number;
  boosterId: number | null;
  type: string;
  url: string | null;
  name: string | null;
  html: string;
  summary: string | null;
  sensitive: boolean;
  attachments: StoredAttachment[];
  published: Date;
  inReplyTo: string | null;
}

export interface ReaderRow {
  id: string;
  object_uri: string;
  type: string;
  url: string | null;
  name: string | null;
  content_html: string;
  summary: string | null;
  sensitive: boolean;
  attachments: StoredAttachment[];
  published: Date;
  in_reply_to: string | null;
  author: AccountColumns;
  booster: AccountColumns | null;
  liked: boolean;
  boosted: boolean;
}

/** The Reader's entries (reader_items) and the blog's own likes and boosts (own_reactions). */
export abstract class ReaderRepository {
  /** False when the activity was taken already. */
  abstract add(row: ReaderRowInput): Promise<boolean>;
  /** The author's new text, pictures and warning on each entry of the object; the pictures it replaced. */
  abstract update(
    objectUri: string,
    authorUri: string,
    row: Pick<ReaderRowInput, 'name' | 'html' | 'summary' | 'sensitive' | 'attachments'>,
  ): Promise<StoredAttachment[]>;
  /** Entries of an object its author deleted; their pictures. */
  abstract removeObject(objectUri: string, authorUri: string): Promise<StoredAttachment[]>;
  /** A boost taken back by its booster; its pictures. */
  abstract removeBoost(activityId: string, boosterUri: string): Promise<StoredAttachment[]>;
  /** Newest first (by arrival), before the entry `before`. */
  abstract page(before: string | null, limit: number): Promise<ReaderRow[]>;
  /** Entries older than the cutoff go, a batch at a time; their pictures. */
  abstract purgeBefore(
    cutoff: Date,
    batch: number,
  ): Promise<{ removed: number; attachments: StoredAttachment[] }>;
  /** Whether any entry still shows this picture (a boost and the post may share it). */
  abstract keysInUse(keys: string[]): Promise<Set<string>>;
  abstract ownReaction(objectUri: string, kind: OwnReactionKind): Promise<string | null>;
  abstract setOwnReaction(objectUri: string, kind: OwnReactionKind, activityId: string | null): Promise<void>;
}

const ACCOUNT = (alias: string) =>
  `json_build_object('uri', ${alias}.uri, 'handle', ${alias}.handle, 'name', ${alias}.name, 'url', ${alias}.url,
    'avatar_key', ${alias}.avatar_key)`;

@Injectable()
export class PostgresReaderRepository extends ReaderRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async add(row: ReaderRowInput): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `INSERT INTO reader_items (activity_id, object_uri, author_id, booster_id, type, url, name, content_html,
         summary, sensitive, attachments, published, in_reply_to)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (activity_id) DO NOTHING RETURNING id`,
      [
        row.activityId,
        row.objectUri,
        row.authorId,
        row.boosterId,
        row.type,
        row.url,
        row.name,
        row.html,
        row.summary,
        row.sensitive,
        JSON.stringify(row.attachments),
        row.published,
        row.inReplyTo,
      ],
    );
    return rows.length > 0;
  }

  async update(
    objectUri: string,
    authorUri: string,
    row: Pick<ReaderRowInput, 'name' | 'html' | 'summary' | 'sensitive' | 'attachments'>,
  ): Promise<StoredAttachment[]> {
    const old = await queryRows<{ attachments: StoredAttachment[] }>(
      this.db,
      `WITH target AS (
         SELECT r.id, r.attachments FROM reader_items r JOIN remote_actors a ON a.id = r.author_id
         WHERE r.object_uri = $1 AND a.uri = $2 FOR UPDATE OF r
       ), changed AS (
         UPDATE reader_items r SET name = $3, content_html = $4, summary = $5, sensitive = $6, attachments = $7
         FROM target WHERE r.id = target.id RETURNING r.id
       )
       SELECT attachments FROM target`,
      [objectUri, authorUri, row.name, row.html, row.summary, row.sensitive, JSON.stringify(row.attachments)],
    );
    return old.flatMap((r) => r.attachments);
  }

  async removeObject(objectUri: string, authorUri: string): Promise<StoredAttachment[]> {
    const rows = await queryRows<{ attachments: StoredAttachment[] }>(
      this.db,
      `DELETE FROM reader_items r USING remote_actors a
       WHERE r.author_id = a.id AND r.object_uri = $1 AND a.uri = $2 RETURNING r.attachments`,
      [objectUri, authorUri],
    );
    return rows.flatMap((r) => r.attachments);
  }

  async removeBoost(activityId: string, boosterUri: string): Promise<StoredAttachment[]> {
    const rows = await queryRows<{ attachments: StoredAttachment[] }>(
      this.db,
      `DELETE FROM reader_items r USING remote_actors a
       WHERE r.booster_id = a.id AND r.activity_id = $1 AND a.uri = $2 RETURNING r.attachments`,
      [activityId, boosterUri],
    );
    return rows.flatMap((r) => r.attachments);
  }

  page(before: string | null, limit: number): Promise<ReaderRow[]> {
    // Keyset on the primary key: a page reads its own rows only, however many came before.
    return queryRows<ReaderRow>(
      this.db,
      `SELECT r.id::text AS id, r.object_uri, r.type, r.url, r.name, r.content_html, r.summary, r.sensitive,
         r.attachments, r.published, r.in_reply_to, ${ACCOUNT('au')} AS author,
         CASE WHEN b.id IS NULL THEN NULL ELSE ${ACCOUNT('b')} END AS booster,
         EXISTS (SELECT 1 FROM own_reactions o WHERE o.object_uri = r.object_uri AND o.kind = 'like') AS liked,
         EXISTS (SELECT 1 FROM own_reactions o WHERE o.object_uri = r.object_uri AND o.kind = 'boost') AS boosted
       FROM reader_items r
       JOIN remote_actors au ON au.id = r.author_id
       LEFT JOIN remote_actors b ON b.id = r.booster_id
       WHERE ($1::bigint IS NULL OR r.id < $1::bigint)
       ORDER BY r.id DESC LIMIT $2`,
      [before, limit],
    );
  }

  async purgeBefore(cutoff: Date, batch: number) {
    const rows = await queryRows<{ attachments: StoredAttachment[] }>(
      this.db,
      `DELETE FROM reader_items WHERE id IN (
         SELECT id FROM reader_items WHERE received_at < $1 ORDER BY received_at LIMIT $2
       ) RETURNING attachments`,
      [cutoff, batch],
    );
    return { removed: rows.length, attachments: rows.flatMap((r) => r.attachments) };
  }

  async keysInUse(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await queryRows<{ key: string }>(
      this.db,
      `SELECT DISTINCT a->>'key' AS key FROM reader_items r CROSS JOIN LATERAL jsonb_array_elements(r.attachments) a
       WHERE a->>'key' = ANY ($1::text[])`,
      [keys],
    );
    return new Set(rows.map((r) => r.key));
  }

  async ownReaction(objectUri: string, kind: OwnReactionKind): Promise<string | null> {
    const [row] = await queryRows<{ activity_id: string }>(
      this.db,
      `SELECT activity_id FROM own_reactions WHERE object_uri = $1 AND kind = $2`,
      [objectUri, kind],
    );
    return row?.activity_id ?? null;
  }

  async setOwnReaction(objectUri: string, kind: OwnReactionKind, activityId: string | null): Promise<void> {
    if (activityId === null)
      await this.db.query(`DELETE FROM own_reactions WHERE object_uri = $1 AND kind = $2`, [objectUri, kind]);
    else
      await this.db.query(
        `INSERT INTO own_reactions (object_uri, kind, activity_id) VALUES ($1, $2, $3)
         ON CONFLICT (object_uri, kind) DO UPDATE SET activity_id = excluded.activity_id, created_at = now()`,
        [objectUri, kind, activityId],
      );
  }
}
