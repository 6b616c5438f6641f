import { Body, Controller, HttpCode, Inject, Post, Put, Req, Res } from '@nestjs/common';
import {
  BANNER_FOLDER,
  keyFromUploadsPath,
  Patterns,
  UPLOADS_PREFIX,
  type SiteConfig,
} from '@blog/contracts';
import type { ObjectStorage } from '@blog/server-kit';
import { ApiError } from '../common/api-error.js';
import { receivePostForm } from '../posts/multipart-upload.js';
import type { Request, Response } from 'express';
import { AdminOnly } from '../common/auth.guard.js';
import { idempotencyOf, sendAnswer } from '../common/idempotency.js';
import type { PublicCache } from '../common/public-cache.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PUBLIC_CACHE, STORAGE } from '../tokens.js';
import { SiteConfigSource } from './site-config-source.js';

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
    @Inject(STORAGE) private readonly storage: ObjectStorage,
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
    const answer = await this.services.call('posts', Patterns.posts.updateSite, {
      site: body,
      moves: typeof body === 'object' && body !== null ? (body as { moves?: unknown }).moves : undefined,
      idempotency,
    });
    this.site.forget();
    this.cache.clear();
    return this.site.withHost(sendAnswer(res, answer));
  }

  /**
   * A new banner: one image in the multipart field `file`, its type checked by content like
   * any upload, processed by the media service into variants; the site then shows it and the
   * previous banner's files are removed. A failure at any step leaves the old banner and no
   * new file behind.
   */
  @Post('banner')
  @HttpCode(200)
  @AdminOnly()
  async banner(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<SiteConfig> {
    const { form } = await receivePostForm(req, res, this.storage);
    const keys = form.files.map((f) => f.key);
    try {
      if (form.files.length !== 1 || form.files[0]!.type !== 'image')
        throw new ApiError(400, 'Send one image in the field "file"');
      const banner = await this.services.call(
        'media',
        Patterns.media.renderBanner,
        { originalKey: keys[0]! },
        60_000,
      );
      let saved: SiteConfig;
      try {
        const current = await this.services.read('posts', Patterns.posts.site, {});
        saved = (
          await this.services.call('posts', Patterns.posts.updateSite, {
            site: { ...current, bannerImage: banner.path },
          })
        ).answer;
      } catch (error) {
        await this.storage.deleteMany(banner.keys).catch(() => undefined);
        throw error;
      }
      this.site.forget();
      this.cache.clear();
      await this.removeOldBanner(saved.bannerImage, banner.folder);
      return this.site.withHost(saved);
    } finally {
      await this.storage.deleteMany(keys).catch(() => undefined);
    }
  }

  /** Every earlier processed banner (the shipped /banner.svg is not in storage). */
  private async removeOldBanner(current: string, keep: string): Promise<void> {
    if (!current.startsWith(UPLOADS_PREFIX)) return;
    const old = (await this.storage.list(BANNER_FOLDER)).filter((key) => !key.startsWith(`${keep}/`));
    if (keyFromUploadsPath(current).startsWith(`${keep}/`)) await this.storage.deleteMany(old);
  }
}
