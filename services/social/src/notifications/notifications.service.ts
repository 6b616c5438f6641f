import { Injectable } from '@nestjs/common';
import { NOTIFICATIONS_PAGE, type NotificationsPage, type NotificationsQuery } from '@blog/contracts';
import type { OwnerNotification } from '@blog/federation';
import { remoteHtmlText } from '@blog/server-kit/remote-html';
import { accountView, RemoteActorsService } from '../followers/remote-actors.service.js';
import { NotificationsRepository } from './notifications.repository.js';

/** A reply's or mention's extract: one line of its text. */
const EXCERPT_MAX = 280;

/** Follows, mentions, replies, likes, boosts and quotes, in one list with an unread count. */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly notifications: NotificationsRepository,
    private readonly actors: RemoteActorsService,
  ) {}

  async add(notification: OwnerNotification): Promise<void> {
    const actorId = await this.actors.remember(notification.actor);
    await this.notifications.add({
      activityId: notification.activityId,
      kind: notification.kind,
      actorId,
      objectUri: notification.objectUri,
      excerpt: notification.html ? remoteHtmlText(notification.html, EXCERPT_MAX) || null : null,
    });
  }

  async page(query: NotificationsQuery): Promise<NotificationsPage> {
    const [rows, unread] = await Promise.all([
      this.notifications.page(query.cursor ?? null, NOTIFICATIONS_PAGE + 1),
      this.notifications.unread(),
    ]);
    const items = rows.slice(0, NOTIFICATIONS_PAGE).map((row) => ({
      id: row.id,
      kind: row.kind,
      actor: accountView(row.actor),
      object: row.object_uri,
      excerpt: row.excerpt,
      createdAt: new Date(row.created_at).toISOString(),
      read: row.read_at !== null,
    }));
    return { items, next: rows.length > NOTIFICATIONS_PAGE ? items.at(-1)!.id : null, unread };
  }

  async unread(): Promise<{ unread: number }> {
    return { unread: await this.notifications.unread() };
  }

  async markRead(upTo: string | undefined): Promise<{ marked: number }> {
    return { marked: await this.notifications.markRead(upTo ?? null) };
  }
}
