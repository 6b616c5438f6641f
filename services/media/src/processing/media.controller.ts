import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { MediaWorker } from './media-worker.js';

const enqueueSchema = z.object({ ids: z.array(z.string().uuid()).max(1000) });

@Controller()
export class MediaController {
  constructor(private readonly worker: MediaWorker) {}

  @MessagePattern(Patterns.media.enqueue)
  enqueue(@Payload() message: RpcEnvelope<unknown>) {
    return this.worker.enqueue(parseOrThrow(enqueueSchema, message.data).ids);
  }
}
