import { Body, Controller, HttpCode, Inject, Put, Req, Res } from '@nestjs/common';
import { Patterns, type IdempotentAnswer, type SiteConfig } from '@blog/contracts';
import type { Request, Response } from 'express';
import { AdminOnly } from '../common/auth.guard.js';
import { idempotencyOf, sendAnswer } from '../common/idempotency.js';
import type { PublicCache } from '../common/public-cache.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PUBLIC_CACHE } from '../tokens.js';
import { SiteConfigSource } from './site-config.service.js';

/**
 * The dashboard's Site tab: PUT takes the shape GET /api/site answers, plus `moves`
 * ([{ from, to }], node ids or label paths) for the posts of nodes it removes. The posts
 * service validates it (a 400 names the wrong entry, as the start-up check does; 409 when a
 * removed node still has posts) and stores it.
 */
@Controller('api/admin/site')
export class SiteAdminController {
  constructor(
    private readonly services: ServiceClients,
    private readonly site: SiteConfigSource,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {}

  @Put()
  @HttpCode(200)
  @AdminOnly()
  async update(
    @Body() body: unknown,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SiteConfig> {
    const idempotency = idempotencyOf(req, 'PUT /api/admin/site', body);
    const answer = await this.services.call<IdempotentAnswer<SiteConfig>>(
      'posts',
      Patterns.posts.updateSite,
      {
        site: body,
        moves: typeof body === 'object' && body !== null ? (body as { moves?: unknown }).moves : undefined,
        idempotency,
      },
    );
    this.site.forget();
    this.cache.clear();
    return sendAnswer(res, answer);
  }
}
