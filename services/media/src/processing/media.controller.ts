import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { BannerRenderer } from './banner-renderer.js';
import { MediaWorker } from './media-worker.js';

@Controller()
export class MediaController {
  constructor(
    private readonly worker: MediaWorker,
    private readonly banner: BannerRenderer,
  ) {}

  @MessagePattern(Patterns.media.enqueue)
  enqueue(@Payload() message: RpcEnvelope<unknown>) {
    return this.worker.enqueue(parseRequest(Patterns.media.enqueue, message).ids);
  }

  @MessagePattern(Patterns.media.renderBanner)
  renderBanner(@Payload() message: RpcEnvelope<unknown>) {
    return this.banner.render(parseRequest(Patterns.media.renderBanner, message).originalKey);
  }
}
