import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { CommentsService } from './comments.service.js';

/** Comments' message handlers: the contract's schema checks each payload, the service decides. */
@Controller()
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @MessagePattern(Patterns.posts.comments)
  list(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.forPost(parseRequest(Patterns.posts.comments, message).postId);
  }

  @MessagePattern(Patterns.posts.commentCreate)
  create(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.create(parseRequest(Patterns.posts.commentCreate, message));
  }

  @MessagePattern(Patterns.posts.commentsAdmin)
  admin(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.adminList(parseRequest(Patterns.posts.commentsAdmin, message));
  }

  @MessagePattern(Patterns.posts.commentModerate)
  moderate(@Payload() message: RpcEnvelope<unknown>) {
    const { id, status } = parseRequest(Patterns.posts.commentModerate, message);
    return this.comments.moderate(id, status);
  }

  @MessagePattern(Patterns.posts.commentDelete)
  delete(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.delete(parseRequest(Patterns.posts.commentDelete, message).id);
  }

  @MessagePattern(Patterns.posts.commentSettings)
  settings(@Payload() message: RpcEnvelope<unknown>) {
    parseRequest(Patterns.posts.commentSettings, message);
    return this.comments.settings();
  }

  @MessagePattern(Patterns.posts.commentSettingsUpdate)
  updateSettings(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.updateSettings(parseRequest(Patterns.posts.commentSettingsUpdate, message));
  }

  @MessagePattern(Patterns.posts.commentPostSettings)
  postSettings(@Payload() message: RpcEnvelope<unknown>) {
    const { postId, ...settings } = parseRequest(Patterns.posts.commentPostSettings, message);
    return this.comments.updatePostSettings(postId, settings);
  }

  @MessagePattern(Patterns.posts.commentPostSettingsGet)
  postSettingsGet(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.postSettings(parseRequest(Patterns.posts.commentPostSettingsGet, message).postId);
  }

  @MessagePattern(Patterns.posts.commentCreateRemote)
  createRemote(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.createFromRemote(parseRequest(Patterns.posts.commentCreateRemote, message));
  }

  @MessagePattern(Patterns.posts.commentUpdateRemote)
  updateRemote(@Payload() message: RpcEnvelope<unknown>) {
    const { remoteObjectId, actorUri, html } = parseRequest(Patterns.posts.commentUpdateRemote, message);
    return this.comments.updateFromRemote(remoteObjectId, actorUri, html);
  }

  @MessagePattern(Patterns.posts.commentDeleteRemote)
  deleteRemote(@Payload() message: RpcEnvelope<unknown>) {
    const { remoteObjectId, actorUri } = parseRequest(Patterns.posts.commentDeleteRemote, message);
    return this.comments.deleteFromRemote(remoteObjectId, actorUri);
  }

  @MessagePattern(Patterns.posts.commentPurge)
  purge(@Payload() message: RpcEnvelope<unknown>) {
    return this.comments.purge(parseRequest(Patterns.posts.commentPurge, message));
  }
}
