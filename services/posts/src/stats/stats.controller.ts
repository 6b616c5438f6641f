import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, statsQuerySchema, type RpcEnvelope, type ViewBatch } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { StatsService } from './stats.service.js';

const batchSchema = z.object({
  id: z.uuid(),
  views: z
    .array(
      z.object({
        at: z.iso.datetime(),
        path: z.string().min(1).max(500),
        kind: z.enum(['page', 'post']),
        slug: z.string().max(200).optional(),
        visitor: z.string().regex(/^[0-9a-f]{64}$/),
        referrerHost: z.string().max(255).nullable(),
        device: z.enum(['phone', 'tablet', 'desktop']),
        country: z
          .string()
          .regex(/^[A-Z]{2}$/)
          .nullable(),
      }),
    )
    .max(50_000),
});
const saltSchema = z.object({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });
const recentSchema = z.object({ ids: z.array(z.number().int()).max(1000) });

/** Page views in, the Stats tab's figures out. */
@Controller()
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @MessagePattern(Patterns.posts.recordViews)
  record(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.record(parseOrThrow(batchSchema, message.data) as ViewBatch);
  }

  @MessagePattern(Patterns.posts.viewSalt)
  salt(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.salt(parseOrThrow(saltSchema, message.data).day);
  }

  @MessagePattern(Patterns.posts.stats)
  report(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.stats(parseOrThrow(statsQuerySchema, message.data));
  }

  @MessagePattern(Patterns.posts.recentViews)
  recent(@Payload() message: RpcEnvelope<unknown>) {
    return this.stats.recentViews(parseOrThrow(recentSchema, message.data).ids);
  }
}
