import { Controller, Get, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { AdminOnly } from '../common/auth.guard.js';
import { ExportService } from './export.service.js';

/** Taking the blog out: everything in one .zip, streamed as it is made. */
@Controller('api/admin/export')
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @Get()
  @AdminOnly()
  async export(@Req() req: Request, @Res() res: Response): Promise<void> {
    const gone = new AbortController();
    req.on('close', () => gone.abort());
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="blog-export-${new Date().toISOString().slice(0, 10)}.zip"`,
    );
    res.setHeader('Cache-Control', 'no-store');
    // An error mid-way cuts the download (the zip is then incomplete and unreadable, never mistaken for whole).
    await pipeline(this.exports.archive(gone.signal), res).catch(() => res.destroy());
  }
}
