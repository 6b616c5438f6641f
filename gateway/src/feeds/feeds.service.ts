import { Inject, Injectable } from '@nestjs/common';
import {
  absoluteUrl,
  escapeHtml as escapeXml,
  excerpt,
  FEED_SIZE,
  listingPaths,
  Patterns,
  POST_URLS_CHUNK_MAX,
  postLink,
  SITEMAP_MAX_URLS,
  type PostUrlsQuery,
  type PostUrlsResult,
} from '@blog/contracts';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { PublicCache } from '../common/public-cache.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PUBLIC_CACHE } from '../tokens.js';
import { SiteConfigSource } from '../site/site-config-source.js';

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** Text inside CDATA; a `]]>` in it is split so it cannot end the section. */
const cdata = (text: string) => `<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;

/**
 * A post's HTML for feed readers, which read it away from the site: the site's own paths
 * (pictures, srcset entries, links) made absolute.
 */
export function absoluteHtml(html: string, siteUrl: string): string {
  return html
    .replace(
      / (src|href|poster)="(\/[^/"][^"]*|\/)"/g,
      (_m, name: string, path: string) => ` ${name}="${absoluteUrl(siteUrl, path)}"`,
    )
    .replace(/ srcset="([^"]*)"/g, (_m, list: string) => {
      const entries = list
        .split(', ')
        .map((entry) => (entry.startsWith('/') ? absoluteUrl(siteUrl, entry) : entry));
      return ` srcset="${entries.join(', ')}"`;
    });
}

/** What the sitemap holds: the listing pages, then every post in id order, cut into files. */
export interface SitemapPlan {
  listings: string[];
  total: number;
  /** 1: /sitemap.xml is the list itself; more: it is an index of /sitemap-{n}.xml. */
  files: number;
}

/** /rss.xml, /sitemap.xml and /robots.txt, with absolute links from the site's address. */
@Injectable()
export class FeedsService {
  constructor(
    private readonly services: ServiceClients,
    private readonly site: SiteConfigSource,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {}

  /** RSS 2.0 of the newest posts: one posts call, shared like the public API reads. */
  rss(siteUrl: string): Promise<string> {
    return this.cache.memo(`rss ${siteUrl}`, () => this.buildRss(siteUrl));
  }

  private async buildRss(siteUrl: string): Promise<string> {
    const [site, latest] = await Promise.all([
      this.site.get(),
      this.services.read('posts', Patterns.posts.list, {
        query: { limit: FEED_SIZE },
        options: { includeHtml: true },
      }),
    ]);
    const items = latest.items.map((post) => {
      const link = escapeXml(postLink(siteUrl, post));
      return [
        '<item>',
        `<title>${escapeXml(post.title)}</title>`,
        `<link>${link}</link>`,
        `<guid isPermaLink="true">${link}</guid>`,
        `<pubDate>${new Date(post.created_at).toUTCString()}</pubDate>`,
        `<category>${escapeXml(post.category)}</category>`,
        `<description>${escapeXml(excerpt(post.excerpt))}</description>`,
        `<content:encoded>${cdata(absoluteHtml(post.contentHtml ?? '', siteUrl))}</content:encoded>`,
        '</item>',
      ].join('');
    });
    const newest = latest.items[0];
    return (
      XML_HEAD +
      '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:content="http://purl.org/rss/1.0/modules/content/">\n<channel>\n' +
      `<title>${escapeXml(site.title)}</title>\n` +
      `<link>${escapeXml(absoluteUrl(siteUrl, '/'))}</link>\n` +
      `<description>${escapeXml(excerpt(site.welcome.text))}</description>\n` +
      '<language>en</language>\n' +
      `<atom:link href="${escapeXml(absoluteUrl(siteUrl, '/rss.xml'))}" rel="self" type="application/rss+xml" />\n` +
      (newest ? `<lastBuildDate>${new Date(newest.created_at).toUTCString()}</lastBuildDate>\n` : '') +
      items.join('\n') +
      '\n</channel>\n</rss>\n'
    );
  }

  robots(siteUrl: string): string {
    return [
      'User-agent: *',
      'Allow: /',
      'Disallow: /admin',
      'Disallow: /api',
      '',
      `Sitemap: ${absoluteUrl(siteUrl, '/sitemap.xml')}`,
      '',
    ].join('\n');
  }

  /** Counting the posts is one cheap query; the tree comes from the cached site config. */
  async sitemapPlan(): Promise<SitemapPlan> {
    const [site, counted] = await Promise.all([this.site.get(), this.postUrls({ limit: 0, count: true })]);
    const listings = listingPaths(site);
    const total = listings.length + (counted.total ?? 0);
    return { listings, total, files: Math.max(1, Math.ceil(total / SITEMAP_MAX_URLS)) };
  }

  /** The index of the sitemap files (when one file cannot hold every URL). */
  sitemapIndex(siteUrl: string, plan: SitemapPlan): string {
    const files = Array.from(
      { length: plan.files },
      (_, i) => `<sitemap><loc>${escapeXml(absoluteUrl(siteUrl, `/sitemap-${i + 1}.xml`))}</loc></sitemap>`,
    );
    return `${XML_HEAD}<sitemapindex xmlns="${SITEMAP_NS}">\n${files.join('\n')}\n</sitemapindex>\n`;
  }

  /**
   * Writes sitemap file `file` (1-based; the whole list when there is one file) to `out`,
   * walking the posts in chunks so 100,000 posts never sit in memory at once.
   */
  async writeSitemap(out: Writable, siteUrl: string, plan: SitemapPlan, file: number): Promise<void> {
    const start = (file - 1) * SITEMAP_MAX_URLS;
    const end = Math.min(start + SITEMAP_MAX_URLS, plan.total);
    const url = (path: string, lastmod?: string) =>
      `<url><loc>${escapeXml(absoluteUrl(siteUrl, path))}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>\n`;
    const write = async (text: string) => {
      if (!out.write(text)) await once(out, 'drain');
    };

    await write(`${XML_HEAD}<urlset xmlns="${SITEMAP_NS}">\n`);
    await write(
      plan.listings
        .slice(start, end)
        .map((path) => url(path))
        .join(''),
    );
    const listed = plan.listings.length;
    let remaining = end - Math.max(start, listed);
    let query: PostUrlsQuery = { offset: Math.max(0, start - listed), limit: 0 };
    while (remaining > 0) {
      const chunk = await this.postUrls({ ...query, limit: Math.min(POST_URLS_CHUNK_MAX, remaining) });
      if (chunk.lastId === null) break;
      await write(
        chunk.items
          .filter((item) => item.url !== null)
          .map((item) => url(item.url!, item.updatedAt))
          .join(''),
      );
      remaining -= chunk.items.length;
      query = { afterId: chunk.lastId, limit: 0 };
    }
    out.end('</urlset>\n');
  }

  private postUrls(query: PostUrlsQuery): Promise<PostUrlsResult> {
    return this.services.read('posts', Patterns.posts.urls, query);
  }
}
