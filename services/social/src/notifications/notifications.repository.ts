import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NotificationKind } from '@blog/contracts';
import { queryRows } from '@blog/server-kit';
import { DataSource } from 'typeorm';
import type { AccountColumns } from '../followers/remote-actors.service.js';

export interface NotificationRow {
  id: string;
  kind: NotificationKind;
  object_uri: string | null;
  excerpt: string | null;
  created_at: Date;
  read_at: Date | null;
  actor: AccountColumns;
}

/** What the owner is told about (notifications), one row per activity. */
export abstract class NotificationsRepository {
  /** False when this activity was told already. */
  abstract add(row: {
    activityId: string;
    kind: NotificationKind;
    actorId: number;
    objectUri: string | null;
    excerpt: string | null;
  }): Promise<boolean>;
  /** Newest first, before the notification `before`. */
  abstract page(before: string | null, limit: number): Promise<NotificationRow[]>;
  abstract unread(): Promise<number>;
  /** Marks unread ones read (all, or up to an id); how many. */
  abstract markRead(upTo: string | null): Promise<number>;
}

@Injectable()
export class PostgresNotificationsRepository extends NotificationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async add(row: {
    activityId: string;
    kind: NotificationKind;
    actorId: number;
    objectUri: string | null;
    excerpt: string | null;
  }): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `INSERT INTO notifications (activity_id, kind, actor_id, object_uri, excerpt) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (activity_id) DO NOTHING RETURNING id`,
      [row.activityId, row.kind, row.actorId, row.objectUri, row.excerpt],
    );
    return rows.length > 0;
  }

  page(before: string | null, limit: number): Promise<NotificationRow[]> {
    return queryRows<NotificationRow>(
      this.db,
      `SELECT n.id::text AS id, n.kind, n.object_uri, n.excerpt, n.created_at, n.read_at,
         json_build_object('uri', a.uri, 'handle', a.handle, 'name', a.name, 'url', a.url, 'avatar_key', a.avatar_key)
           AS actor
       FROM notifications n JOIN remote_actors a ON a.id = n.actor_id
       WHERE ($1::bigint IS NULL OR n.id < $1::bigint)
       ORDER BY n.id DESC LIMIT $2`,
      [before, limit],
    );
  }

  async unread(): Promise<number> {
    const [row] = await queryRows<{ n: number }>(
      this.db,
      `SELECT count(*)::int AS n FROM notifications WHERE read_at IS NULL`,
    );
    return row!.n;
  }

  async markRead(upTo: string | null): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `UPDATE notifications SET read_at = now()
       WHERE read_at IS NULL AND ($1::bigint IS NULL OR id <= $1::bigint) RETURNING id`,
      [upTo],
    );
    return rows.length;
  }
}
