import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { z } from 'zod';
import { ExportJobs } from './export-jobs.js';

const linkClaimSchema = z.object({ id: z.uuid(), expiresAt: z.coerce.date() });

/** The dashboard's exports: started, followed, and their one-time download links used up. */
@Controller()
export class ExportController {
  constructor(private readonly exports: ExportJobs) {}

  @MessagePattern(Patterns.posts.exportStart)
  start() {
    return this.exports.start();
  }

  @MessagePattern(Patterns.posts.exportReport)
  report(@Payload() message: RpcEnvelope<{ id?: unknown }>) {
    return this.exports.report(String(message.data?.id ?? ''));
  }

  @MessagePattern(Patterns.posts.claimExportLink)
  claimExportLink(@Payload() message: RpcEnvelope<unknown>): Promise<boolean> {
    const { id, expiresAt } = parseOrThrow(linkClaimSchema, message.data);
    return this.exports.claimLink(id, expiresAt);
  }
}
