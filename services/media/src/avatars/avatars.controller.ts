import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { AvatarCache } from './avatar-cache.js';

@Controller()
export class AvatarsController {
  constructor(private readonly avatars: AvatarCache) {}

  @MessagePattern(Patterns.media.cacheAvatar)
  async cache(@Payload() message: RpcEnvelope<unknown>) {
    return { key: await this.avatars.cache(parseRequest(Patterns.media.cacheAvatar, message).url) };
  }
}
