import { Controller, Get, Inject, NotFoundException, Post, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';
import { sendText } from '../common/compression.js';
import { siteUrl } from '../common/site-url.js';
import { API_PATHS } from '../common/web-app.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { apiBaseOf } from './api-base.js';
import { PagesService, type PageRequest, type RenderedPage } from './pages.service.js';

const queryOf = (url: string) => {
  const start = url.indexOf('?');
  return start < 0 ? '' : url.slice(start);
};

/** A form posted without JavaScript: small, URL-encoded. */
const parseForm = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 20 });

/** Every GET that no API route or file answered: a page of the site (registered last). */
@Controller()
export class PagesController {
  private apiBase: string | undefined;

  constructor(
    private readonly pages: PagesService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly adapterHost: HttpAdapterHost,
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
    this.send(req, res, await this.pages.render(this.pageRequest(req)));
  }

  /**
   * The About page's contact and subscribe forms posted without JavaScript: the route's
   * action sends them on to the API, and the answer is the About page with its texts (docs/product.md#about-contact-and-subscribe).
   */
  @Post('about')
  async form(@Req() req: Request, @Res() res: Response): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      parseForm(req, res, (error) => (error ? reject(error) : resolve())),
    );
    const form = new URLSearchParams(req.body as Record<string, string>);
    this.send(req, res, await this.pages.render({ ...this.pageRequest(req), form }));
  }

  private pageRequest(req: Request): PageRequest {
    return {
      path: req.path,
      search: queryOf(req.originalUrl),
      siteUrl: siteUrl(this.config, req),
      apiBase: this.ownApiBase(),
      clientIp: req.ip ?? '',
      authorization: req.headers.authorization,
    };
  }

  /**
   * Read once from the listening server, never from a request's socket: a reader who hung up
   * has no local address left, and the page rendered for them may be the one every reader
   * waiting on the same page gets (a broken API address made it a 503 for all of them).
   */
  private ownApiBase(): string {
    this.apiBase ??= apiBaseOf((this.adapterHost.httpAdapter.getHttpServer() as Server).address());
    return this.apiBase;
  }

  private send(req: Request, res: Response, page: RenderedPage | null): void {
    if (!page) throw new NotFoundException();
    // A moved page keeps the query it was asked with (?page=2 of a renamed listing).
    if ('location' in page) {
      const keepQuery = page.status === 301 && !page.location.includes('?');
      return res.redirect(page.status, page.location + (keepQuery ? queryOf(req.originalUrl) : ''));
    }
    // Revalidated every time (the ETag makes that cheap): asset names change with each build.
    res.status(page.status).setHeader('Cache-Control', 'no-cache');
    if (page.status === 503) res.setHeader('Retry-After', '5');
    sendText(req, res, page.html, 'html');
  }
}
