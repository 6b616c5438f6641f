import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { InteropService } from './interop.service.js';

@Controller()
export class InteropController {
  constructor(private readonly interop: InteropService) {}

  /** A remote fetch (the target's actor) and a Move queued to every follower: the caller waits longer. */
  @MessagePattern(Patterns.social.moveFollowers)
  move(@Payload() message: RpcEnvelope<unknown>) {
    return this.interop.moveFollowers(parseRequest(Patterns.social.moveFollowers, message));
  }
}
