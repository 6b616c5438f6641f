import { Inject, Injectable } from '@nestjs/common';
import { Patterns, type SiteConfig } from '@blog/contracts';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { ServiceClients } from '../rpc/service-clients.js';

type Cached<T> = { value: Promise<T>; at: number } | null;

/**
 * The site config (texts, registration, category tree) and the redirects of renamed paths,
 * for pages, feeds and the register check, asked of the posts service at most once per
 * SITE_CACHE_MS: the owner's changes from the dashboard show within it on every replica
 * (and at once on the one that saved).
 */
@Injectable()
export class SiteConfigSource {
  private site: Cached<SiteConfig> = null;
  private redirectMap: Cached<Record<string, string>> = null;

  constructor(
    private readonly services: ServiceClients,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  get(): Promise<SiteConfig> {
    this.site = this.fresh(this.site, Patterns.posts.site, (entry) => {
      if (this.site === entry) this.site = null;
    });
    return this.site.value;
  }

  /** Old listing path → current one. */
  redirects(): Promise<Record<string, string>> {
    this.redirectMap = this.fresh(this.redirectMap, Patterns.posts.siteRedirects, (entry) => {
      if (this.redirectMap === entry) this.redirectMap = null;
    });
    return this.redirectMap.value;
  }

  /** After a change this replica forwarded: the next read asks again. */
  forget(): void {
    this.site = null;
    this.redirectMap = null;
  }

  private fresh<T>(
    cached: Cached<T>,
    pattern: string,
    drop: (entry: Cached<T>) => void,
  ): NonNullable<Cached<T>> {
    if (cached && Date.now() - cached.at <= this.config.SITE_CACHE_MS) return cached;
    const entry = { value: this.services.read<T>('posts', pattern, {}), at: Date.now() };
    // A failure is not kept: the next request asks again.
    entry.value.catch(() => drop(entry));
    return entry;
  }
}
