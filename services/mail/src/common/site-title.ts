import { Inject, Injectable } from '@nestjs/common';
import { PostsClient } from '../digest/posts-client.js';
import { SITE_TITLE } from '../tokens.js';

const FRESH_MS = 5000;

/**
 * The site title every e-mail carries: the owner's current one from the posts service (it
 * changes from the dashboard), asked at most every 5 s; while that service cannot answer,
 * the last known title, else the one of the site file read at start.
 */
@Injectable()
export class SiteTitle {
  private known?: { title: string; at: number };

  constructor(
    private readonly posts: PostsClient,
    @Inject(SITE_TITLE) private readonly fromFile: string,
  ) {}

  async current(): Promise<string> {
    if (this.known && Date.now() - this.known.at < FRESH_MS) return this.known.title;
    let title: string;
    try {
      title = (await this.posts.site()).title;
    } catch {
      title = this.known?.title ?? this.fromFile;
    }
    this.known = { title, at: Date.now() };
    return title;
  }
}
