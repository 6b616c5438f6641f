import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { BannerRenderer } from './banner-renderer.js';
import { MediaWorker } from './media-worker.js';

const enqueueSchema = z.object({ ids: z.array(z.string().uuid()).max(1000) });
const bannerSchema = z.object({ originalKey: z.string().startsWith('private/originals/') });

@Controller()
export class MediaController {
  constructor(
    private readonly worker: MediaWorker,
    private readonly banner: BannerRenderer,
  ) {}

  @MessagePattern(Patterns.media.enqueue)
  enqueue(@Payload() message: RpcEnvelope<unknown>) {
    return this.worker.enqueue(parseOrThrow(enqueueSchema, message.data).ids);
  }

  @MessagePattern(Patterns.media.renderBanner)
  renderBanner(@Payload() message: RpcEnvelope<unknown>) {
    return this.banner.render(parseOrThrow(bannerSchema, message.data).originalKey);
  }
}
