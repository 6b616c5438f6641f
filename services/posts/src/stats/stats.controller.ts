import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { StatsService } from './stats.service.js';

/** Page views in, the Stats tab's figures out. */
@Controller()
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @MessagePattern(Patterns.posts.recordViews)
  record(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.record(parseRequest(Patterns.posts.recordViews, message));
  }

  @MessagePattern(Patterns.posts.viewSalt)
  salt(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.salt(parseRequest(Patterns.posts.viewSalt, message).day);
  }

  @MessagePattern(Patterns.posts.stats)
  report(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.stats(parseRequest(Patterns.posts.stats, message));
  }

  @MessagePattern(Patterns.posts.recentViews)
  recent(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.recentViews(parseRequest(Patterns.posts.recentViews, message).ids);
  }
}
