import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { ActorKeysService } from './actor-keys.service.js';

@Controller()
export class KeysController {
  constructor(private readonly keys: ActorKeysService) {}

  @MessagePattern(Patterns.social.keys)
  pairs(@Payload() message: RpcEnvelope<unknown>) {
    parseRequest(Patterns.social.keys, message);
    return this.keys.pairs();
  }
}
