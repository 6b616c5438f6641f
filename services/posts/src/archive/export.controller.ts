import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseRequest } from '@blog/server-kit';
import { ExportJobs } from './export-jobs.js';

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
    const { id, expiresAt } = parseRequest(Patterns.posts.claimExportLink, message);
    return this.exports.claimLink(id, expiresAt);
  }
}
