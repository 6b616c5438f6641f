import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  adminCommentsQuerySchema,
  CommentErrors,
  commentCreateSchema,
  commentSettingsSchema,
  Patterns,
  type AdminCommentsQuery,
  type AdminCommentsResult,
  type CommentCreateInput,
  type CommentSettings,
  type CommentView,
  type PostCommentSettings,
  type PostCommentsResult,
} from '@blog/contracts';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { AdminOnly, AuthGuard, type AuthenticatedRequest } from '../common/auth.guard.js';
import { idempotencyOf, sendAnswer } from '../common/idempotency.js';
import type { PublicCache } from '../common/public-cache.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PUBLIC_CACHE } from '../tokens.js';

/** A path id: digits only (else 400), within PostgreSQL's integer. */
function idOf(raw: string, notFound?: string): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > 2_147_483_647) {
    if (notFound) throw new ApiError(404, notFound);
    throw new ApiError(400, 'id must be a positive number');
  }
  return Number(raw);
}

/**
 * Comments' routes. The public list is a GET under /api/posts, so the public cache
 * keeps it like the other public reads; every write here clears that cache.
 */
@Controller('api')
export class CommentsController {
  constructor(
    private readonly services: ServiceClients,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {}

  /** A visible post's approved comments, threaded; 404 for a draft, a scheduled or an unknown post. */
  @Get('posts/:id/comments')
  list(@Param('id') id: string): Promise<PostCommentsResult> {
    return this.services.read('posts', Patterns.posts.comments, {
      postId: idOf(id, CommentErrors.postNotFound),
    });
  }

  /** A signed-in reader's comment: 202 with it (pending unless its author is known and auto-approval is on). */
  @Post('posts/:id/comments')
  @UseGuards(AuthGuard)
  @HttpCode(202)
  async create(
    @Param('id') id: string,
    @Body(new ZodPipe(commentCreateSchema)) body: CommentCreateInput,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CommentView> {
    const postId = idOf(id, CommentErrors.postNotFound);
    const result = await this.services.call('posts', Patterns.posts.commentCreate, {
      ...body,
      postId,
      userId: req.user!.sub,
      userName: req.user!.username,
      ip: clientIp(req),
      idempotency: idempotencyOf(req, `POST /api/posts/${postId}/comments`, body),
    });
    if (result.answer.status === 'approved') this.cache.clear();
    return sendAnswer(res, result);
  }

  /** The dashboard's Comments tab: one status, newest first, with every status's count. */
  @Get('admin/comments')
  @AdminOnly()
  adminList(
    @Query(new ZodPipe(adminCommentsQuerySchema)) query: AdminCommentsQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AdminCommentsResult> {
    res.setHeader('Cache-Control', 'no-store');
    return this.services.read('posts', Patterns.posts.commentsAdmin, query);
  }

  @Post('admin/comments/:id/approve')
  @AdminOnly()
  @HttpCode(200)
  approve(@Param('id') id: string): Promise<CommentView> {
    return this.moderate(idOf(id), 'approved');
  }

  @Post('admin/comments/:id/spam')
  @AdminOnly()
  @HttpCode(200)
  spam(@Param('id') id: string): Promise<CommentView> {
    return this.moderate(idOf(id), 'spam');
  }

  @Delete('admin/comments/:id')
  @AdminOnly()
  async remove(@Param('id') id: string): Promise<{ deleted: true }> {
    const result = await this.services.call('posts', Patterns.posts.commentDelete, { id: idOf(id) });
    this.cache.clear();
    return result;
  }

  /** The site-wide "approve automatically from known commenters". */
  @Get('admin/comments/settings')
  @AdminOnly()
  settings(): Promise<CommentSettings> {
    return this.services.read('posts', Patterns.posts.commentSettings, {});
  }

  @Put('admin/comments/settings')
  @AdminOnly()
  updateSettings(@Body(new ZodPipe(commentSettingsSchema)) body: CommentSettings): Promise<CommentSettings> {
    return this.services.call('posts', Patterns.posts.commentSettingsUpdate, body);
  }

  @Get('admin/posts/:id/comments/settings')
  @AdminOnly()
  postSettings(@Param('id') id: string): Promise<PostCommentSettings> {
    return this.services.read('posts', Patterns.posts.commentPostSettingsGet, {
      postId: idOf(id, CommentErrors.postNotFound),
    });
  }

  /** One post's own "approve automatically from known commenters" (on when either is on). */
  @Put('admin/posts/:id/comments/settings')
  @AdminOnly()
  updatePostSettings(
    @Param('id') id: string,
    @Body(new ZodPipe(commentSettingsSchema)) body: CommentSettings,
  ): Promise<PostCommentSettings> {
    return this.services.call('posts', Patterns.posts.commentPostSettings, {
      ...body,
      postId: idOf(id, CommentErrors.postNotFound),
    });
  }

  private async moderate(id: number, status: 'approved' | 'spam'): Promise<CommentView> {
    const view = await this.services.call('posts', Patterns.posts.commentModerate, { id, status });
    this.cache.clear();
    return view;
  }
}

const clientIp = (req: Request) => req.ip ?? 'unknown';
