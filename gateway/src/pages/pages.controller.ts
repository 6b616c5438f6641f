import { Controller, Get, Inject, NotFoundException, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { sendText } from '../common/compression.js';
import { siteUrl } from '../common/site-url.js';
import { API_PATHS } from '../common/web-app.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { PagesService } from './pages.service.js';

const queryOf = (url: string) => {
  const start = url.indexOf('?');
  return start < 0 ? '' : url.slice(start);
};

/** Every GET that no API route or file answered: a page of the site (registered last). */
@Controller()
export class PagesController {
  constructor(
    private readonly pages: PagesService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('{*path}')
  async page(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (API_PATHS.test(req.path)) throw new NotFoundException();
    // WordPress's plain links (/?p=123) of an imported post lead to its page.
    const p = req.query.p;
    if (req.path === '/' && typeof p === 'string' && /^\d+$/.test(p)) {
      const location = await this.pages.oldPostPath(`/?p=${p}`);
      if (location) return res.redirect(301, location);
    }
    const page = await this.pages.render(req.path, siteUrl(this.config, req));
    if (!page) throw new NotFoundException();
    // A moved page keeps the query it was asked with (?page=2 of a renamed listing).
    if ('location' in page) return res.redirect(301, page.location + queryOf(req.originalUrl));
    // Revalidated every time (the ETag makes that cheap): asset names change with each build.
    res.status(page.status).setHeader('Cache-Control', 'no-cache');
    if (page.status === 503) res.setHeader('Retry-After', '5');
    sendText(req, res, page.html, 'html');
  }
}
