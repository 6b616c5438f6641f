import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { ReactionsService } from './reactions.service.js';

@Controller()
export class ReactionsController {
  constructor(private readonly reactions: ReactionsService) {}

  @MessagePattern(Patterns.social.reaction)
  add(@Payload() message: RpcEnvelope<unknown>) {
    return this.reactions.add(parseRequest(Patterns.social.reaction, message));
  }

  @MessagePattern(Patterns.social.reactionCounts)
  counts(@Payload() message: RpcEnvelope<unknown>) {
    return this.reactions.counts(parseRequest(Patterns.social.reactionCounts, message).postIds);
  }

  @MessagePattern(Patterns.social.noteReactionCounts)
  noteCounts(@Payload() message: RpcEnvelope<unknown>) {
    return this.reactions.noteCounts(parseRequest(Patterns.social.noteReactionCounts, message).noteIds);
  }

  @MessagePattern(Patterns.social.undoReaction)
  undo(@Payload() message: RpcEnvelope<unknown>) {
    return this.reactions.undo(parseRequest(Patterns.social.undoReaction, message));
  }
}
