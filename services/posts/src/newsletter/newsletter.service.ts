import { Inject, Injectable } from '@nestjs/common';
import {
  buildPostPath,
  type NewsletterEvent,
  type NewsletterPicture,
  type NewsletterPostAnswer,
} from '@blog/contracts';
import type { EntityManager } from 'typeorm';
import type { PostsConfig } from '../config.js';
import { SiteSettings } from '../site/site-settings.js';
import { POSTS_CONFIG } from '../tokens.js';
import { NewsletterEventsRepository } from './newsletter-events.repository.js';
import { emailPicture, newsletterHtml, newsletterText } from './newsletter-html.js';
import { NewsletterRepository } from './newsletter.repository.js';

/** The blog's address when SITE_URL is unset (the federation's default too). */
const DEFAULT_SITE_URL = 'http://localhost:3000';

/**
 * Every post by e-mail, the posts side. What a save owes the each-post subscribers is written
 * in the save's own transaction (`record`): a post published with "Send by e-mail" is owed once,
 * due at its publish time (a scheduled post's at its minute); a draft never; an edit of a post
 * already owed or handed over writes nothing new (one row per post); turning the box on for a
 * published post that was never sent owes it now; turning it off before it was handed over
 * drops it. Imports and restores never call `record`. The mail service reads the due events
 * (`pending`), marks each `done` once it has claimed the subscribers, and asks for the `post`
 * before each batch: a post no longer visible answers `{ gone: true }` and the rest is not sent.
 */
@Injectable()
export class NewsletterService {
  private readonly origin: string;

  constructor(
    private readonly events: NewsletterEventsRepository,
    private readonly stored: NewsletterRepository,
    private readonly settings: SiteSettings,
    @Inject(POSTS_CONFIG) config: Pick<PostsConfig, 'SITE_URL'>,
  ) {
    this.origin = config.SITE_URL ?? DEFAULT_SITE_URL;
  }

  /** After the save of post `postId`, on the save's transaction. */
  record(manager: EntityManager, postId: number): Promise<void> {
    return this.events.record(manager, postId);
  }

  pending(limit: number): Promise<NewsletterEvent[]> {
    return this.events.pending(limit);
  }

  async done(id: string): Promise<{ done: boolean }> {
    return { done: await this.events.markDone(id) };
  }

  /** Post `postId` as its e-mail carries it; `preview` (the owner's test) takes a draft or a scheduled one too. */
  async post(postId: number, preview = false): Promise<NewsletterPostAnswer> {
    const row = await this.stored.find(postId, preview);
    if (!row) return { gone: true };
    const url = `${this.origin}${buildPostPath(this.settings.current(), row) ?? `/post/${row.id}`}`;
    const html = newsletterHtml(row.contentHtml, row.media, url, this.origin);
    return {
      id: row.id,
      title: row.title,
      url,
      html,
      text: newsletterText(html),
      excerpt: row.excerpt,
      published: new Date(row.createdAt).toISOString(),
      pictures: row.media
        .filter((item) => item.type === 'image')
        .map((item) => emailPicture(item, this.origin))
        .filter((picture): picture is NewsletterPicture => picture !== null),
    };
  }
}
