import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  Patterns,
  recentViewsRequestSchema,
  statsQuerySchema,
  viewBatchSchema,
  viewSaltRequestSchema,
  type RpcEnvelope,
} from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { StatsService } from './stats.service.js';

/** Page views in, the Stats tab's figures out. */
@Controller()
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @MessagePattern(Patterns.posts.recordViews)
  record(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.record(parseOrThrow(viewBatchSchema, message.data));
  }

  @MessagePattern(Patterns.posts.viewSalt)
  salt(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.salt(parseOrThrow(viewSaltRequestSchema, message.data).day);
  }

  @MessagePattern(Patterns.posts.stats)
  report(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.stats(parseOrThrow(statsQuerySchema, message.data));
  }

  @MessagePattern(Patterns.posts.recentViews)
  recent(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.recentViews(parseOrThrow(recentViewsRequestSchema, message.data).ids);
  }
}
