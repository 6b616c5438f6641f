import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { notesQuerySchema, Patterns, type NotesQuery } from '@blog/contracts';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { sendText } from '../common/compression.js';
import { siteUrl } from '../common/site-url.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { SiteConfigSource } from '../site/site-config-source.js';
import {
  goneNotePage,
  notePage,
  notesListPage,
  notesRss,
  notFoundNotePage,
  NOTES_PAGE_CSP,
} from './notes-pages.js';

/**
 * The notes' public pages, rendered here: `/notes`, `/notes/{id}` (410 once deleted) and their
 * RSS feed. An ActivityPub client asking for `/notes/{id}` never gets here: the federation
 * answers it the Note (or its 410) first.
 */
@Controller('notes')
export class NotesPagesController {
  constructor(
    private readonly services: ServiceClients,
    private readonly site: SiteConfigSource,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get('rss.xml')
  async rss(@Req() req: Request, @Res() res: Response): Promise<void> {
    const [site, page] = await Promise.all([
      this.site.get(),
      this.services.read('posts', Patterns.posts.notesPage, {}),
    ]);
    res.setHeader('Cache-Control', 'no-cache');
    sendText(
      req,
      res,
      notesRss(site, siteUrl(this.config, req), page.items),
      'application/rss+xml; charset=utf-8',
    );
  }

  @Get()
  async list(
    @Query(new ZodPipe(notesQuerySchema)) query: NotesQuery,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const [site, page] = await Promise.all([
      this.site.get(),
      this.services.read('posts', Patterns.posts.notesPage, query),
    ]);
    this.html(req, res, 200, notesListPage(site, page.items, page.next));
  }

  @Get(':id')
  async note(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const site = await this.site.get();
    if (!/^[1-9]\d{0,8}$/.test(id)) return this.html(req, res, 404, notFoundNotePage(site));
    let answer;
    try {
      answer = await this.services.read('posts', Patterns.posts.noteGet, { id: Number(id) });
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() === 404) answer = null;
      else throw error;
    }
    if (answer === null) return this.html(req, res, 404, notFoundNotePage(site));
    if ('gone' in answer) return this.html(req, res, 410, goneNotePage(site));
    this.html(req, res, 200, notePage(site, siteUrl(this.config, req), answer));
  }

  private html(req: Request, res: Response, status: number, html: string): void {
    res.status(status).setHeader('Cache-Control', 'no-cache');
    res.setHeader('Content-Security-Policy', NOTES_PAGE_CSP);
    res.vary('Accept');
    sendText(req, res, html, 'html');
  }
}
