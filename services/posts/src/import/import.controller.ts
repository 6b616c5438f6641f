import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { buildPostPath, Patterns, type RpcEnvelope } from '@blog/contracts';
import { parseOrThrow } from '@blog/server-kit';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { SiteSettings } from '../site/site-settings.js';
import { VISIBILITY_SQL } from '../posts/visibility.js';
import { BlogIdentity } from './blog-identity.js';
import { ExportBatchService } from './export-batch.service.js';
import { ImportService } from './import.service.js';

const oldPathSchema = z.object({ path: z.string().max(1000) });
const linkClaimSchema = z.object({ id: z.uuid(), expiresAt: z.coerce.date() });
const batchSchema = z.object({
  afterId: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(500).default(200),
});

/** The dashboard's imports and exports, and the old URLs of imported posts. */
@Controller()
export class ImportController {
  constructor(
    private readonly imports: ImportService,
    private readonly exports: ExportBatchService,
    private readonly settings: SiteSettings,
    private readonly identity: BlogIdentity,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  @MessagePattern(Patterns.posts.importStart)
  start(@Payload() message: RpcEnvelope<unknown>) {
    return this.imports.start(message.data);
  }

  @MessagePattern(Patterns.posts.importReport)
  report(@Payload() message: RpcEnvelope<{ id?: unknown }>) {
    return this.imports.report(String(message.data?.id ?? ''));
  }

  /** The current path of the post an old URL ("/?p=12", "/2019/05/my-post") belonged to, or null. */
  @MessagePattern(Patterns.posts.exportBatch)
  exportBatch(@Payload() message: RpcEnvelope<unknown>) {
    const { afterId, limit } = parseOrThrow(batchSchema, message.data ?? {});
    return this.exports.batch(afterId, limit);
  }

  /** What the export writes as the archive's `blog`: an import of it here then knows it as this blog's. */
  @MessagePattern(Patterns.posts.blogIdentity)
  blogIdentity() {
    return this.identity.current();
  }

  @MessagePattern(Patterns.posts.claimExportLink)
  claimExportLink(@Payload() message: RpcEnvelope<unknown>): Promise<boolean> {
    const { id, expiresAt } = parseOrThrow(linkClaimSchema, message.data);
    return this.exports.claimLink(id, expiresAt);
  }

  @MessagePattern(Patterns.posts.oldPath)
  async oldPath(@Payload() message: RpcEnvelope<unknown>): Promise<string | null> {
    const { path } = parseOrThrow(oldPathSchema, message.data);
    const [row] = (await this.db.query(
      `SELECT p.slug, p.category, p.submenu1, p.submenu2 FROM posts.post_old_paths o
       JOIN posts.posts p ON p.id = o.post_id WHERE o.path = $1 AND ${VISIBILITY_SQL.visible}`,
      [path],
    )) as { slug: string; category: string; submenu1: string; submenu2: string | null }[];
    return row ? buildPostPath(this.settings.current(), row) : null;
  }
}
