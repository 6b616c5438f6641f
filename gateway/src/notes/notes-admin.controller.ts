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
  Req,
  Res,
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
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { AdminOnly } from '../common/auth.guard.js';
import type { PublicCache } from '../common/public-cache.js';
import { ZodPipe } from '../common/zod.pipe.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { PUBLIC_CACHE } from '../tokens.js';
import { NoteWriter } from './note-writer.js';

/** A note's id in a path: anything else is no note (404), never a 400. */
function noteId(raw: string): number {
  if (!/^[1-9]\d{0,8}$/.test(raw)) throw new ApiError(404, NoteErrors.notFound);
  return Number(raw);
}

/**
 * The owner's notes and replies from the dashboard. A reply's author (what `inReplyTo` names) is
 * looked up by the social service through the outbound policy before anything is stored, so a
 * note that answers what cannot be fetched is refused and changes nothing. A note with pictures
 * comes as a multipart form (its files through the post form's upload path, NoteWriter).
 */
@Controller('api/admin')
export class NotesAdminController {
  constructor(
    private readonly services: ServiceClients,
    private readonly writer: NoteWriter,
    @Inject(PUBLIC_CACHE) private readonly cache: PublicCache,
  ) {}

  @Post('fediverse/notes')
  @AdminOnly()
  @HttpCode(201)
  async create(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() json: unknown,
  ): Promise<NoteView> {
    const form = req.is('multipart/form-data') ? await this.writer.receive(req, res) : null;
    const pictures = form?.pictures ?? [];
    return this.changed(
      this.writer.write(pictures, async () => {
        const body: NoteWrite = new ZodPipe(noteWriteSchema).transform(
          form ? this.writer.textOf(form.fields, ['content', 'inReplyTo']) : json,
        );
        const mention = body.inReplyTo
          ? await this.services.call('social', Patterns.social.replyTarget, { objectUri: body.inReplyTo })
          : null;
        return this.services.call('posts', Patterns.posts.noteCreate, { ...body, mention, pictures });
      }),
    );
  }

  @Get('fediverse/notes')
  @AdminOnly()
  @Header('Cache-Control', 'no-store')
  list(@Query(new ZodPipe(notesQuerySchema)) query: NotesQuery): Promise<NotesPage> {
    return this.services.read('posts', Patterns.posts.notesPage, query);
  }

  @Patch('fediverse/notes/:id')
  @AdminOnly()
  patch(
    @Param('id') id: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() json: unknown,
  ): Promise<NoteView> {
    return this.edit(id, req, res, json);
  }

  @Put('fediverse/notes/:id')
  @AdminOnly()
  put(
    @Param('id') id: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Body() json: unknown,
  ): Promise<NoteView> {
    return this.edit(id, req, res, json);
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

  /** An edit: JSON `{content}` (the pictures stay), or a form that may also drop pictures and add some. */
  private async edit(rawId: string, req: Request, res: Response, json: unknown): Promise<NoteView> {
    const id = noteId(rawId);
    const form = req.is('multipart/form-data') ? await this.writer.receive(req, res, { keep: true }) : null;
    const pictures = form?.pictures ?? [];
    return this.changed(
      this.writer.write(pictures, () => {
        const body: NoteEdit = new ZodPipe(noteEditSchema).transform(
          form ? this.writer.textOf(form.fields, ['content']) : json,
        );
        const keep = form ? this.writer.keepOf(form.fields) : undefined;
        return this.services.call('posts', Patterns.posts.noteUpdate, { id, ...body, keep, pictures });
      }),
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
