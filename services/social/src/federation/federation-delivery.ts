import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { FederationEvent } from '@blog/contracts';
import type { ArticleData, BlogFederation, NoteData } from '@blog/federation';
import { JsonLogger } from '@blog/server-kit';
import { SOCIAL_CONFIG, type SocialConfig } from '../config.js';
import { articleDataOf, noteDataOf } from './blog-ports.js';
import { OutboundActivitiesRepository } from './outbound-activities.repository.js';
import { PostsClient } from './posts-client.js';

/** Events read per poll (the rest wait for the next one). */
const EVENTS_PER_POLL = 100;

/** A Delete names only the Article's id: the rest of an ArticleData is never read for it. */
const tombstoneOf = (postId: number): ArticleData => ({
  id: postId,
  title: '',
  html: '',
  excerpt: '',
  url: '',
  published: new Date(0),
  updated: null,
  tags: [],
  images: [],
});

/**
 * Hands what posts owes the followers (its federation events: publish, edit, delete) to Fedify's
 * delivery queue, every FEDERATION_POLL_MS and at start. An event is marked done once its activity
 * is queued (or there is nothing to send); a failure leaves it for the next poll. Fedify's queue
 * then retries each inbox with back-off for 48 hours.
 */
@Injectable()
export class FederationDelivery implements OnApplicationShutdown {
  private readonly logger: JsonLogger;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @Inject(SOCIAL_CONFIG) private readonly config: SocialConfig,
    private readonly posts: PostsClient,
    private readonly outbound: OutboundActivitiesRepository,
  ) {
    this.logger = new JsonLogger('social', config.LOG_LEVEL);
  }

  /** Starts polling (the caller's async context, with its fetch policy, carries into every poll). */
  start(blog: BlogFederation): void {
    const tick = () => {
      this.running ??= this.poll(blog).finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, this.config.FEDERATION_POLL_MS);
    this.timer.unref();
    tick();
  }

  async poll(blog: BlogFederation): Promise<void> {
    let events: FederationEvent[];
    try {
      events = await this.posts.pendingEvents(EVENTS_PER_POLL);
    } catch (error) {
      this.logger.event('warn', 'federation events not read', { error: describe(error) });
      return;
    }
    for (const event of events) {
      try {
        await this.deliver(blog, event);
        await this.posts.eventDone(event.id);
      } catch (error) {
        this.logger.event('warn', 'federation event not delivered', {
          eventId: event.id,
          postId: event.postId,
          kind: event.kind,
          error: describe(error),
        });
      }
    }
  }

  /** Queues the event's activity once (by its id); false when there was nothing (more) to send. */
  private async deliver(blog: BlogFederation, event: FederationEvent): Promise<boolean> {
    if (event.postId === null) return this.deliverNote(blog, event);
    let article: ArticleData;
    if (event.kind === 'delete') article = tombstoneOf(event.postId);
    else {
      const answer = await this.posts.article(event.postId);
      // A draft again, or deleted since: its own event (if any) says what to send.
      if (answer === null || 'gone' in answer) return false;
      article = articleDataOf(answer);
    }
    const activityId = blog.activityFor(event.kind, article).id!.href;
    return this.outbound.sendOnce({ activityId, postId: event.postId, kind: event.kind }, () =>
      blog.publish(event.kind, article),
    );
  }

  /**
   * A note's or an owner's reply's Note, sent like an Article (recorded once by its activity id;
   * outbound_activities keeps post 0 for them, its activity id names the Note).
   */
  private async deliverNote(blog: BlogFederation, event: FederationEvent): Promise<boolean> {
    const [kind, id] = event.noteId
      ? (['note', event.noteId] as const)
      : (['comment', event.commentId!] as const);
    const answer = await this.posts.federatedNote(kind, id);
    let note: NoteData;
    if (event.kind === 'delete') {
      // Its id, and whom it mentioned (the Delete reaches them as the Create did); a reply deleted
      // since names what was kept when it was deleted.
      const uri = answer?.uri ?? (kind === 'note' ? `${blog.origin.origin}/notes/${id}` : null);
      if (!uri) return false;
      note = {
        uri,
        url: uri,
        html: '',
        published: new Date(0),
        updated: null,
        inReplyTo: null,
        mention: answer?.mention ?? null,
      };
    } else {
      if (answer === null || 'gone' in answer) return false; // deleted since: its Delete says the rest
      note = noteDataOf(answer);
    }
    const activityId = blog.noteActivityFor(event.kind, note).id!.href;
    return this.outbound.sendOnce({ activityId, postId: 0, kind: event.kind }, () =>
      blog.publishNote(event.kind, note),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'error' in error) return String(error.error);
  return String(error);
}
