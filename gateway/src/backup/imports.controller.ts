import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { Patterns, type ImportReport } from '@blog/contracts';
import type { ObjectStorage } from '@blog/server-kit';
import type { Request, Response } from 'express';
import { ApiError } from '../common/api-error.js';
import { AdminOnly } from '../common/auth.guard.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { STORAGE } from '../tokens.js';
import { receiveImport } from './import-upload.js';

/** Bringing a blog in: a WordPress or Ghost export, imported in the background by the posts service. */
@Controller('api/admin/import')
export class ImportsController {
  constructor(
    private readonly services: ServiceClients,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
  ) {}

  /** 202 with the import's report; GET …/{id} follows it. */
  @Post()
  @HttpCode(202)
  @AdminOnly()
  async start(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<ImportReport> {
    const { fileKey, fields } = await receiveImport(req, res, this.storage);
    let categoryMap: unknown;
    try {
      categoryMap = fields.categoryMap?.trim() ? JSON.parse(fields.categoryMap) : {};
    } catch {
      await this.storage.delete(fileKey).catch(() => undefined);
      throw new ApiError(400, 'categoryMap must be valid JSON');
    }
    const options = { categoryMap, sourceUrl: fields.sourceUrl ?? '', drafts: fields.drafts || undefined };
    try {
      return await this.services.call('posts', Patterns.posts.importStart, { fileKey, options }, 30_000);
    } catch (error) {
      await this.storage.delete(fileKey).catch(() => undefined);
      throw error;
    }
  }

  @Get(':id')
  @AdminOnly()
  report(@Param('id') id: string): Promise<ImportReport> {
    return this.services.read('posts', Patterns.posts.importReport, { id });
  }
}
