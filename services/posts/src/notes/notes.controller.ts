import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { NotesService } from './notes.service.js';
import { OwnerReplies } from './owner-replies.js';

/** Notes' message handlers: the contract's schema checks each payload, the service decides. */
@Controller()
export class NotesController {
  constructor(
    private readonly notes: NotesService,
    private readonly replies: OwnerReplies,
  ) {}

  @MessagePattern(Patterns.posts.noteCreate)
  create(@Payload() message: RpcEnvelope<unknown>) {
    return this.notes.create(parseRequest(Patterns.posts.noteCreate, message));
  }

  @MessagePattern(Patterns.posts.noteUpdate)
  update(@Payload() message: RpcEnvelope<unknown>) {
    const { id, content, keep, pictures } = parseRequest(Patterns.posts.noteUpdate, message);
    return this.notes.update(id, content, { keep, pictures });
  }

  @MessagePattern(Patterns.posts.noteDelete)
  delete(@Payload() message: RpcEnvelope<unknown>) {
    return this.notes.delete(parseRequest(Patterns.posts.noteDelete, message).id);
  }

  @MessagePattern(Patterns.posts.noteGet)
  get(@Payload() message: RpcEnvelope<unknown>) {
    return this.notes.get(parseRequest(Patterns.posts.noteGet, message).id);
  }

  @MessagePattern(Patterns.posts.notesPage)
  page(@Payload() message: RpcEnvelope<unknown>) {
    return this.notes.page(parseRequest(Patterns.posts.notesPage, message));
  }

  /** The Note a federation event names: a note's, or an owner's reply's to a fediverse comment. */
  @MessagePattern(Patterns.posts.federatedNote)
  federated(@Payload() message: RpcEnvelope<unknown>) {
    const { kind, id } = parseRequest(Patterns.posts.federatedNote, message);
    return kind === 'note' ? this.notes.federated(id) : this.replies.federated(id);
  }

  @MessagePattern(Patterns.posts.commentOwnerReply)
  reply(@Payload() message: RpcEnvelope<unknown>) {
    const { commentId, content } = parseRequest(Patterns.posts.commentOwnerReply, message);
    return this.replies.reply(commentId, content);
  }
}
