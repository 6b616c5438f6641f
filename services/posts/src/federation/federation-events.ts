import { Injectable } from '@nestjs/common';
import type { FederationEvent } from '@blog/contracts';
import type { EntityManager } from 'typeorm';
import { FederationEventsRepository, type FederatedSnapshot } from './federation-events.repository.js';

/**
 * The rules of what a post write owes the blog's followers, written on the write's
 * own transaction so a rolled-back write owes nothing and a committed one is never forgotten:
 *
 * - published (a new post, or a draft made published): a Create due at its publish time (a
 *   scheduled post's at its minute; when that time moves before it is due, the Create moves too);
 * - a delivered post edited so that its Article changes: an Update, due now;
 * - unpublished or deleted: a Delete when its Create was delivered; a Create not yet delivered
 *   (and any Update) is dropped instead, so followers never hear of a post that never went out.
 * - a delivered post dated ahead (scheduled again): a Delete now and a Create at its new time,
 *   as visitors lose it until then.
 *
 * The social service reads the due events (`pending`: a Create or Update also waits, for a
 * while, on its post's media still processing) and marks each `done` once queued.
 */
@Injectable()
export class FederationEvents {
  constructor(private readonly stored: FederationEventsRepository) {}

  /** Post `postId` before a write changes it (read under the write's lock); null for a new post. */
  before(manager: EntityManager, postId: number): Promise<FederatedSnapshot | null> {
    return this.stored.snapshot(manager, postId);
  }

  /** After the write of post `postId` (gone when deleted): the event it owes, if any. */
  async record(manager: EntityManager, postId: number, before: FederatedSnapshot | null): Promise<void> {
    const wasPublished = before?.status === 'published';
    const after = await this.stored.snapshot(manager, postId);
    const isPublished = after?.status === 'published';
    if (!wasPublished && !isPublished) return;
    const state = await this.stored.state(manager, postId);
    if (isPublished && !wasPublished) {
      if (!state.pendingCreate) await this.stored.add(manager, postId, 'create', after.publishAt);
      return;
    }
    if (isPublished) {
      if (state.pendingCreate) {
        if (state.pendingCreate.dueAt.getTime() !== after.publishAt.getTime())
          await this.stored.moveDue(manager, state.pendingCreate.id, after.publishAt);
      } else if (state.delivered && after.publishAt.getTime() > Date.now()) {
        // Dated ahead after it went out: hidden until then, so taken back now and sent again then.
        await this.stored.dropPending(manager, postId);
        await this.stored.add(manager, postId, 'delete', null);
        await this.stored.add(manager, postId, 'create', after.publishAt);
      } else if (state.delivered && before!.fingerprint !== after.fingerprint) {
        await this.stored.add(manager, postId, 'update', null);
      }
      return;
    }
    await this.stored.dropPending(manager, postId);
    if (state.delivered) await this.stored.add(manager, postId, 'delete', null);
  }

  pending(limit: number): Promise<FederationEvent[]> {
    return this.stored.pending(limit);
  }

  async done(id: string): Promise<{ done: boolean }> {
    return { done: await this.stored.markDone(id) };
  }
}
