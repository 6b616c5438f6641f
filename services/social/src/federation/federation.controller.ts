import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NoteErrors, Patterns, type RpcEnvelope } from '@blog/contracts';
import { replyTargetOf } from '@blog/federation';
import { parseRequest, RpcError } from '@blog/server-kit';
import { FederationHttpService } from './federation-http.service.js';
import { FederationRuntime } from './federation-runtime.js';

@Controller()
export class FederationController {
  constructor(
    private readonly http: FederationHttpService,
    private readonly runtime: FederationRuntime,
  ) {}

  @MessagePattern(Patterns.social.http)
  handle(@Payload() message: RpcEnvelope<unknown>) {
    return this.http.handle(parseRequest(Patterns.social.http, message));
  }

  /** The author a reply of the owner's mentions (a note's `inReplyTo`), looked up through the outbound policy. */
  @MessagePattern(Patterns.social.replyTarget)
  async replyTarget(@Payload() message: RpcEnvelope<unknown>) {
    const { objectUri } = parseRequest(Patterns.social.replyTarget, message);
    const target = await replyTargetOf(this.runtime.blog.context(), objectUri);
    if (!target) throw RpcError.unprocessable(NoteErrors.replyTarget);
    return target;
  }
}
