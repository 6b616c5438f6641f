import { Injectable } from '@nestjs/common';
import { Patterns, type SiteConfig } from '@blog/contracts';
import { ServiceClients } from '../rpc/service-clients.js';

/** The tree changes only when the posts service restarts with a new file: a minute is fresh enough. */
const TTL_MS = 60_000;

/** The site config (texts and category tree) for pages and feeds, asked of the posts service once a minute. */
@Injectable()
export class SiteConfigSource {
  private cached: { site: Promise<SiteConfig>; at: number } | null = null;

  constructor(private readonly services: ServiceClients) {}

  get(): Promise<SiteConfig> {
    if (!this.cached || Date.now() - this.cached.at > TTL_MS) {
      const site = this.services.read<SiteConfig>('posts', Patterns.posts.site, {});
      const entry = { site, at: Date.now() };
      this.cached = entry;
      // A failure is not kept: the next request asks again.
      site.catch(() => {
        if (this.cached === entry) this.cached = null;
      });
    }
    return this.cached.site;
  }
}
