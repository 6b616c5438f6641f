import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { Controller, Inject } from '@nestjs/common';
import type { ObjectStorage } from '@blog/server-kit';
import { STORAGE } from '../tokens.js';
import { AvatarCache, dropPictures } from './avatar-cache.js';

/** The Reader's pictures: the same cache as avatars, in their own folder and shape. */
export const PICTURE_CACHE = Symbol('PICTURE_CACHE');

@Controller()
export class AvatarsController {
  constructor(
    private readonly avatars: AvatarCache,
    @Inject(PICTURE_CACHE) private readonly pictures: AvatarCache,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
  ) {}

  @MessagePattern(Patterns.media.cachePicture)
  async cachePicture(@Payload() message: RpcEnvelope<unknown>) {
    return { key: await this.pictures.cache(parseRequest(Patterns.media.cachePicture, message).url) };
  }

  @MessagePattern(Patterns.media.dropPictures)
  async dropPictures(@Payload() message: RpcEnvelope<unknown>) {
    const { keys } = parseRequest(Patterns.media.dropPictures, message);
    return { dropped: await dropPictures(this.storage, keys) };
  }

  @MessagePattern(Patterns.media.cacheAvatar)
  async cache(@Payload() message: RpcEnvelope<unknown>) {
    return { key: await this.avatars.cache(parseRequest(Patterns.media.cacheAvatar, message).url) };
  }
}
