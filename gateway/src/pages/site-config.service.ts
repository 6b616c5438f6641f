import { Inject, Injectable } from '@nestjs/common';
import { Patterns, type SiteConfig } from '@blog/contracts';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { ServiceClients } from '../rpc/service-clients.js';

/**
 * The site config (texts, registration, category tree) for pages, feeds and the register
 * check, asked of the posts service at most once per SITE_CACHE_MS: the owner's changes
 * from the dashboard show within it on every replica (and at once on the one that saved).
 */
@Injectable()
export class SiteConfigSource {
  private cached: { site: Promise<SiteConfig>; at: number } | null = null;

  constructor(
    private readonly services: ServiceClients,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  get(): Promise<SiteConfig> {
    if (!this.cached || Date.now() - this.cached.at > this.config.SITE_CACHE_MS) {
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

  /** After a change this replica forwarded: the next read asks again. */
  forget(): void {
    this.cached = null;
  }
}
