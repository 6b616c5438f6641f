import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import {
  commentReplySchema,
  NoteErrors,
  noteEditSchema,
  notesQuerySchema,
  noteWriteSchema,
  Patterns,
  type CommentReply,
  type CommentReplyResult,
  type NoteEdit,
  type NotesPage,
  type NotesQuery,
  type NoteView,
  type NoteWrite,
} from '@blog/contracts';
import { ApiError } from '../common/api-error.js';
import { AdminOnly } from '../common/auth.guard.js';
import type { PublicCache } from '../common/public-cache.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PUBLIC_CACHE } from '../tokens.js';

/** A note's id in a path: anything else is no note (404), never a 400. */
function noteId(raw: string): number {
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ApiError(404, NoteErrors.notFound);
  return Number(raw);
}

/**
 * The owner's notes and replies from the dashboard. A reply's author (what `inReplyTo` names) is
 * looked up by the social service through the outbound policy before anything is stored, so a
 * note that answers what cannot be fetched is refused and changes nothing.
 */
@Controller('api/admin')
export class NotesAdminController {
  constructor(
    private readonly services: ServiceClients,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {}

  @Post('fediverse/notes')
  @AdminOnly()
  @HttpCode(201)
  async create(@Body(new ZodPipe(noteWriteSchema)) body: NoteWrite): Promise<NoteView> {
    const mention = body.inReplyTo
      ? await this.services.call('social', Patterns.social.replyTarget, { objectUri: body.inReplyTo })
      : null;
    return this.changed(this.services.call('posts', Patterns.posts.noteCreate, { ...body, mention }));
  }

  @Get('fediverse/notes')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  list(@Query(new ZodPipe(notesQuerySchema)) query: NotesQuery): Promise<NotesPage> {
    return this.services.read('posts', Patterns.posts.notesPage, query);
  }

  @Patch('fediverse/notes/:id')
  @AdminOnly()
  patch(@Param('id') id: string, @Body(new ZodPipe(noteEditSchema)) body: NoteEdit): Promise<NoteView> {
    return this.changed(this.services.call('posts', Patterns.posts.noteUpdate, { id: noteId(id), ...body }));
  }

  @Put('fediverse/notes/:id')
  @AdminOnly()
  put(@Param('id') id: string, @Body(new ZodPipe(noteEditSchema)) body: NoteEdit): Promise<NoteView> {
    return this.patch(id, body);
  }

  @Delete('fediverse/notes/:id')
  @AdminOnly()
  delete(@Param('id') id: string): Promise<{ deleted: true }> {
    return this.changed(this.services.call('posts', Patterns.posts.noteDelete, { id: noteId(id) }));
  }

  /** The owner's answer under a post, shown as the author's; sent to the fediverse when the comment came from there. */
  @Post('comments/:id/reply')
  @AdminOnly()
  @HttpCode(201)
  reply(
    @Param('id') id: string,
    @Body(new ZodPipe(commentReplySchema)) body: CommentReply,
  ): Promise<CommentReplyResult> {
    if (!/^[1-9]\d{0,8}$/.test(id)) throw new ApiError(404, NoteErrors.commentNotFound);
    return this.changed(
      this.services.call('posts', Patterns.posts.commentOwnerReply, { commentId: Number(id), ...body }),
    );
  }

  /** Pages (the notes, a post's comments) kept for guests show the change at once. */
  private async changed<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.cache.clear();
    }
  }
}
