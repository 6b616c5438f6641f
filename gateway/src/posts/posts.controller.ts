import { SiteConfigSource } from '../site/site-config-source.js';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  Patterns,
  PostErrors,
  postListQuerySchema,
  postPreviewSchema,
  readOptionsFor,
  type PostPreview,
  type PostPreviewRequest,
  type PostListQuery,
  type PostView,
  type SiteConfig,
} from '@blog/contracts';
import type { Request, Response } from 'express';
import { AdminOnly } from '../common/auth.guard.js';
import { ApiError } from '../common/api-error.js';
import { OptionalAuth } from '../common/optional-auth.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PostWriter } from './post-writer.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function postId(raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) throw new ApiError(404, PostErrors.notFound);
  return Number(raw);
}

@Controller('api')
export class PostsController {
  constructor(
    private readonly services: ServiceClients,
    private readonly writer: PostWriter,
    private readonly auth: OptionalAuth,
    private readonly siteConfig: SiteConfigSource,
  ) {}

  @Get('site')
  site(): Promise<SiteConfig> {
    return this.siteConfig.get();
  }

  /** Newest first, filtered and paged in the database; the total is in X-Total-Count. */
  @Get('posts')
  async list(
    @Query(new ZodPipe(postListQuerySchema)) query: PostListQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PostView[]> {
    const result = await this.services.read('posts', Patterns.posts.list, {
      query,
      options: readOptionsFor(await this.auth.isAdmin(req)),
    });
    res.setHeader('X-Total-Count', String(result.total));
    return result.items;
  }

  @Get('posts/by-slug/:slug')
  async bySlug(@Param('slug') slug: string, @Req() req: Request): Promise<PostView> {
    return this.services.read('posts', Patterns.posts.getBySlug, {
      slug,
      options: readOptionsFor(await this.auth.isAdmin(req)),
    });
  }

  @Get('posts/:id')
  async byId(@Param('id') id: string, @Req() req: Request): Promise<PostView> {
    return this.services.read('posts', Patterns.posts.get, {
      id: postId(id),
      options: readOptionsFor(await this.auth.isAdmin(req)),
    });
  }

  @Post('posts')
  @AdminOnly()
  @HttpCode(201)
  create(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<PostView> {
    return this.writer.create(req, res);
  }

  /** The server's renderer on unsaved text, for the editor's Preview. */
  @Post('posts/preview')
  @AdminOnly()
  @HttpCode(200)
  preview(@Body(new ZodPipe(postPreviewSchema)) body: PostPreviewRequest): Promise<PostPreview> {
    return this.services.call('posts', Patterns.posts.preview, body);
  }

  @Put('posts/:id')
  @AdminOnly()
  update(
    @Param('id') id: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PostView> {
    return this.writer.update(postId(id), req, res);
  }

  @Post('posts/:id/media/:itemId/retry')
  @AdminOnly()
  @HttpCode(200)
  retryMedia(
    @Param('id') id: string,
    @Param('itemId') itemId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PostView> {
    if (!UUID.test(itemId)) throw new ApiError(404, PostErrors.mediaNotFound);
    return this.writer.retryMedia(postId(id), itemId, req, res);
  }

  @Delete('posts/:id')
  @AdminOnly()
  @HttpCode(200)
  async remove(
    @Param('id') id: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ success: true }> {
    await this.writer.delete(postId(id), req, res);
    return { success: true };
  }
}
