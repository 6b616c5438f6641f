import { Inject, Injectable } from '@nestjs/common';
import {
  notFoundMeta,
  Patterns,
  postPageMeta,
  redirectFor,
  routePage,
  type PostView,
  type SiteConfig,
} from '@blog/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../common/api-error.js';
import { PublicCache } from '../common/public-cache.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { PUBLIC_CACHE } from '../tokens.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { AppShell } from './app-shell.js';
import { SiteConfigSource } from './site-config.service.js';

export type RenderedPage = { status: number; html: string } | { status: 301; location: string };

/**
 * The HTML of a page: the app shell with the page's title and share tags, 404 for a path
 * the site has no page for (the app then shows its not-found page). A post page costs one
 * posts call; everything else is answered from the cached site config.
 */
@Injectable()
export class PagesService {
  private readonly shell: AppShell | null;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly services: ServiceClients,
    private readonly site: SiteConfigSource,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {
    const file = config.APP_SHELL ?? (config.WEB_DIST ? join(config.WEB_DIST, 'index.html') : undefined);
    this.shell = file ? new AppShell(readFileSync(file, 'utf8')) : null;
  }

  /** Null when this gateway serves no pages (no app shell configured). */
  async render(path: string, siteUrl: string): Promise<RenderedPage | null> {
    const shell = this.shell;
    if (!shell) return null;
    // Like the public API reads: a hot post costs one posts call per TTL, not one per reader.
    return this.cache.memo(
      `page ${siteUrl}${path}`,
      () => this.build(shell, path, siteUrl),
      (page) => page.status !== 503,
    );
  }

  private async build(shell: AppShell, path: string, siteUrl: string): Promise<RenderedPage> {
    let site: SiteConfig;
    try {
      site = await this.site.get();
    } catch {
      return { status: 503, html: shell.plain };
    }
    const notFound = { status: 404, html: shell.fill(notFoundMeta(site, siteUrl, path), site) };
    const route = routePage(site, siteUrl, path);
    if (!route) return (await this.movedTo(path)) ?? notFound;
    if (route.kind === 'page') return { status: 200, html: shell.fill(route.meta, site) };

    let post: PostView;
    try {
      post =
        route.kind === 'post'
          ? await this.services.read('posts', Patterns.posts.getBySlug, { slug: route.slug })
          : await this.services.read('posts', Patterns.posts.get, { id: route.id });
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() < 500) return (await this.movedTo(path)) ?? notFound;
      return { status: 503, html: shell.plain };
    }
    // The slug exists under another section (the post moved): send readers and links to its page.
    if (route.kind === 'post' && post.url !== route.path)
      return post.url ? { status: 301, location: post.url } : notFound;
    return { status: 200, html: shell.fill(postPageMeta(site, siteUrl, post), site, { post }) };
  }

  /** A path under a listing whose URL changed: the same path under the new one (301). */
  private async movedTo(path: string): Promise<RenderedPage | null> {
    let redirects: Record<string, string>;
    try {
      redirects = await this.site.redirects();
    } catch {
      return null;
    }
    const location = redirectFor(redirects, path) ?? (await this.oldPostPath(path.replace(/\/+$/, '')));
    return location ? { status: 301, location } : null;
  }

  /** An imported post's old address ("/?p=12", "/2019/05/12/my-post"): its page now, or null. */
  async oldPostPath(key: string): Promise<string | null> {
    if (!key) return null;
    try {
      return await this.services.read<string | null>('posts', Patterns.posts.oldPath, { path: key });
    } catch {
      return null;
    }
  }
}
