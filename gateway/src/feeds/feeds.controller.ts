import { Controller, Get, Inject, NotFoundException, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { compressedStream, sendText } from '../common/compression.js';
import { siteUrl } from '../common/site-url.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { FeedsService, type SitemapPlan } from './feeds.service.js';

const XML = 'application/xml; charset=utf-8';

/** The feed, the sitemap and robots.txt: public, revalidated on every read like the API's. */
@Controller()
export class FeedsController {
  constructor(
    private readonly feeds: FeedsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('rss.xml')
  async rss(@Req() req: Request, @Res() res: Response): Promise<void> {
    const xml = await this.feeds.rss(siteUrl(this.config, req));
    res.setHeader('Cache-Control', 'no-cache');
    sendText(req, res, xml, 'application/rss+xml; charset=utf-8');
  }

  @Get('robots.txt')
  robots(@Req() req: Request, @Res() res: Response): void {
    res.setHeader('Cache-Control', 'no-cache');
    sendText(req, res, this.feeds.robots(siteUrl(this.config, req)), 'text/plain; charset=utf-8');
  }

  @Get('sitemap.xml')
  async sitemap(@Req() req: Request, @Res() res: Response): Promise<void> {
    const plan = await this.feeds.sitemapPlan();
    if (plan.files > 1) {
      res.setHeader('Cache-Control', 'no-cache');
      return sendText(req, res, this.feeds.sitemapIndex(siteUrl(this.config, req), plan), XML);
    }
    await this.stream(req, res, plan, 1);
  }

  @Get('sitemap-:file.xml')
  async sitemapFile(@Param('file') file: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const plan = await this.feeds.sitemapPlan();
    const n = /^\d{1,6}$/.test(file) ? Number(file) : 0;
    // With one file there is no index: /sitemap.xml is the only address of the list.
    if (plan.files === 1 || n < 1 || n > plan.files) throw new NotFoundException();
    await this.stream(req, res, plan, n);
  }

  private async stream(req: Request, res: Response, plan: SitemapPlan, file: number): Promise<void> {
    res.type(XML).setHeader('Cache-Control', 'no-cache');
    if (req.method === 'HEAD') return void res.end();
    const out = compressedStream(req, res);
    try {
      await this.feeds.writeSitemap(out, siteUrl(this.config, req), plan, file);
    } catch (error) {
      // Half a sitemap must not look complete: cut the connection.
      res.destroy(error as Error);
    }
  }
}
