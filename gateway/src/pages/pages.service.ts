import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  notFoundMeta,
  Patterns,
  postPageMeta,
  redirectFor,
  routePage,
  type PageMeta,
  type PostView,
  type PreloadedData,
  type RenderPage,
  type SiteConfig,
} from '@blog/contracts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../common/api-error.js';
import { CompressibleText } from '../common/compression.js';
import { PublicCache } from '../common/public-cache.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { PUBLIC_CACHE } from '../tokens.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { AppShell } from './app-shell.js';
import { loadRenderer, rendererFile } from './page-renderer.js';
import { SiteConfigSource } from '../site/site-config-source.js';

/** What a screen drawn only in the browser shows without JavaScript (the app replaces it). */
const CLIENT_ONLY_NOSCRIPT =
  '<noscript><p class="loading">Signing in and the dashboard need JavaScript.</p></noscript>';

type BuiltPage = { status: number; html: string } | { status: 301 | 302; location: string };

/** A page as served: a kept page is compressed once, not once per reader. */
export type RenderedPage =
  { status: number; html: CompressibleText } | { status: 301 | 302; location: string };

/** A post's Article (its stable `/post/{id}`), only while the post is visible: never a draft's or a scheduled one's. */
const articleUrl = (siteUrl: string, post: PostView | null | undefined): string | undefined =>
  post?.status === 'published' ? `${siteUrl}/post/${post.id}` : undefined;

const served = (page: BuiltPage): RenderedPage =>
  'html' in page ? { status: page.status, html: new CompressibleText(page.html) } : page;

/** One request for a page, as the controller read it. */
export interface PageRequest {
  path: string;
  /** The query string with its `?`, or ''. */
  search: string;
  siteUrl: string;
  /** Where the renderer's loaders reach this gateway's API (its own address, over loopback). */
  apiBase: string;
  /** The reader's address, for the API's rate limits. */
  clientIp: string;
  /** A signed-in request's Authorization header: its page is rendered for it alone, never cached. */
  authorization?: string;
  /** A form posted without JavaScript. */
  form?: URLSearchParams;
}

/**
 * The HTML of a page. With the web's page renderer (web/dist-ssr), every public page is
 * rendered on the server by the same routes and loaders the browser runs, into the app
 * shell with the page's title and share tags; the browser hydrates it. Without it (or when it
 * fails), the shell with the tags, which the app then draws. 404 for a path the site has no
 * page for, 301 for a page that moved. A guest's page is kept like the public API answers.
 */
@Injectable()
export class PagesService implements OnModuleInit {
  private readonly logger = new Logger(PagesService.name);
  private readonly shell: AppShell | null;
  private readonly rendererFile: string | null;
  private renderPage: RenderPage | null = null;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly services: ServiceClients,
    private readonly site: SiteConfigSource,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {
    const file = config.APP_SHELL ?? (config.WEB_DIST ? join(config.WEB_DIST, 'index.html') : undefined);
    this.shell = file ? new AppShell(readFileSync(file, 'utf8')) : null;
    this.rendererFile = this.shell ? rendererFile(file, config.SSR_ENTRY) : null;
  }

  async onModuleInit(): Promise<void> {
    if (this.rendererFile) this.renderPage = await loadRenderer(this.rendererFile);
  }

  /** Null when this gateway serves no pages (no app shell configured). */
  async render(request: PageRequest): Promise<RenderedPage | null> {
    const shell = this.shell;
    if (!shell) return null;
    if (request.authorization || request.form) return served(await this.build(shell, request));
    // Like the public API reads: a hot page costs one render per TTL, not one per reader.
    return this.cache.memo(
      `page ${request.siteUrl}${request.path}${request.search}`,
      async () => served(await this.build(shell, request)),
      (page) => page.status !== 503,
    );
  }

  private async build(shell: AppShell, request: PageRequest): Promise<BuiltPage> {
    let site: SiteConfig;
    try {
      site = await this.site.get();
    } catch {
      return { status: 503, html: shell.plain };
    }
    const { path, siteUrl } = request;
    const route = routePage(site, siteUrl, path);
    // A listing whose URL changed, an imported post's old address: 301 before anything renders.
    if (!route) {
      const moved = await this.movedTo(path);
      if (moved) return moved;
    }
    if (this.renderPage) {
      try {
        return await this.rendered(
          this.renderPage,
          shell,
          site,
          request,
          route?.kind === 'page' ? route.meta : null,
        );
      } catch (error) {
        this.logger.error(
          `Rendering ${path} failed: ${error instanceof Error ? error.stack : String(error)}`,
        );
        return { status: 503, html: shell.plain };
      }
    }
    return this.shellOnly(shell, site, request, route);
  }

  private async rendered(
    renderPage: RenderPage,
    shell: AppShell,
    site: SiteConfig,
    request: PageRequest,
    pageMeta: PageMeta | null,
  ): Promise<BuiltPage> {
    const { path, search, siteUrl } = request;
    const result = await renderPage({
      url: `${siteUrl}${path}${search}`,
      method: request.form ? 'POST' : 'GET',
      form: request.form,
      site,
      apiBase: request.apiBase,
      apiHeaders: {
        'x-forwarded-for': request.clientIp,
        ...(request.authorization ? { authorization: request.authorization } : {}),
      },
    });
    if (result.kind === 'redirect') {
      return { status: result.status === 302 ? 302 : 301, location: result.location };
    }
    const notFound = notFoundMeta(site, siteUrl, path);
    if (result.kind === 'client')
      return {
        status: 200,
        html: shell.fill(pageMeta ?? notFound, site, result.preloaded, CLIENT_ONLY_NOSCRIPT),
      };
    // A post route whose slug is gone may be an imported post's old address.
    if (result.status === 404) {
      const moved = await this.movedTo(path);
      if (moved) return moved;
    }
    const meta = result.post
      ? postPageMeta(site, siteUrl, result.post)
      : result.status === 404 || !pageMeta
        ? notFound
        : new URLSearchParams(search).get('q')?.trim()
          ? { ...pageMeta, title: site.searchTitle }
          : pageMeta;
    return {
      status: result.status,
      html: shell.fill(meta, site, result.preloaded, result.markup, articleUrl(siteUrl, result.post)),
    };
  }

  /** Without the renderer: the shell with the page's tags (a post page costs one posts call). */
  private async shellOnly(
    shell: AppShell,
    site: SiteConfig,
    { path, siteUrl }: PageRequest,
    route: ReturnType<typeof routePage>,
  ): Promise<BuiltPage> {
    const preloaded: PreloadedData = { rendered: false, loaderData: { root: { site, search: null } } };
    const notFound = { status: 404, html: shell.fill(notFoundMeta(site, siteUrl, path), site, preloaded) };
    if (!route) return notFound;
    if (route.kind === 'page') return { status: 200, html: shell.fill(route.meta, site, preloaded) };

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
    return {
      status: 200,
      html: shell.fill(postPageMeta(site, siteUrl, post), site, preloaded, '', articleUrl(siteUrl, post)),
    };
  }

  /** A path under a listing whose URL changed: the same path under the new one (301). */
  private async movedTo(path: string): Promise<BuiltPage | null> {
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
      return await this.services.read('posts', Patterns.posts.oldPath, { path: key });
    } catch {
      return null;
    }
  }
}
