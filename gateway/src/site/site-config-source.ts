import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Patterns, type SiteConfig } from '@blog/contracts';
import type { PublicCache } from '../common/public-cache.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PUBLIC_CACHE } from '../tokens.js';

/**
 * The site config (texts, registration, category tree) and the redirects of renamed paths,
 * for GET /api/site, pages, feeds and the register check. Both are kept until the stored
 * version moves: every SITE_CACHE_MS this gateway asks the posts service for the version
 * (a number from memory, which every posts replica learns at once by NOTIFY) and, when it
 * moved, drops its copies and its public cache, whose pages were built from the old site.
 * The gateway that forwarded a change forgets at once (forget()).
 */
@Injectable()
export class SiteConfigSource implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SiteConfigSource.name);
  private site: Promise<SiteConfig> | null = null;
  private redirectMap: Promise<Record<string, string>> | null = null;
  private version: number | null = null;
  private watch?: NodeJS.Timeout;

  constructor(
    private readonly services: ServiceClients,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {}

  onModuleInit(): void {
    if (this.config.SITE_CACHE_MS === 0) return;
    this.watch = setInterval(() => void this.checkVersion(), this.config.SITE_CACHE_MS);
    this.watch.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.watch);
  }

  get(): Promise<SiteConfig> {
    if (this.config.SITE_CACHE_MS === 0) return this.read();
    this.site ??= this.keep(this.read(), () => {
      this.site = null;
    });
    return this.site;
  }

  private async read(): Promise<SiteConfig> {
    return this.withHost(await this.services.read('posts', Patterns.posts.site, {}));
  }

  /** The site as the gateway serves it: with the host of its fediverse handle (SITE_URL's, else the launcher's default). */
  withHost(site: SiteConfig): SiteConfig {
    return { ...site, host: new URL(this.config.SITE_URL ?? `http://localhost:${this.config.PORT}`).host };
  }

  /** Old listing path → current one. */
  redirects(): Promise<Record<string, string>> {
    if (this.config.SITE_CACHE_MS === 0) return this.services.read('posts', Patterns.posts.siteRedirects, {});
    this.redirectMap ??= this.keep(this.services.read('posts', Patterns.posts.siteRedirects, {}), () => {
      this.redirectMap = null;
    });
    return this.redirectMap;
  }

  /** After a change this replica forwarded: the next read asks again. */
  forget(): void {
    this.site = null;
    this.redirectMap = null;
  }

  /** A failure is not kept: the next request asks again. */
  private keep<T>(value: Promise<T>, drop: () => void): Promise<T> {
    value.catch(drop);
    return value;
  }

  private async checkVersion(): Promise<void> {
    let version: number;
    try {
      version = await this.services.read('posts', Patterns.posts.siteVersion, {});
    } catch (error) {
      // The copies stay: a stale site is better than none while the posts service is away.
      this.logger.debug(`site version not checked: ${(error as Error).message}`);
      return;
    }
    if (this.version !== null && version !== this.version) {
      this.forget();
      this.cache.clear();
    }
    this.version = version;
  }
}
