import { Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ErrorText } from '@blog/contracts';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../common/api-error.js';
import { AdminOnly, type AuthenticatedRequest } from '../common/auth.guard.js';
import { ExportService } from './export.service.js';

/** A download link works this long, once: long enough to start the download, useless later. */
const LINK_SECONDS = 60;

/**
 * Taking the blog out: everything in one .zip, streamed as it is made. With the bearer token
 * (scripts, curl), or through a one-time link the dashboard asks for, so the browser saves a
 * multi-gigabyte archive straight to disk instead of holding it in memory.
 */
@Controller('api/admin/export')
export class ExportController {
  private readonly usedLinks = new Set<string>();

  constructor(
    private readonly exports: ExportService,
    private readonly jwt: JwtService,
  ) {}

  @Get()
  @AdminOnly()
  export(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.send(req, res);
  }

  @Post('link')
  @HttpCode(200)
  @AdminOnly()
  async link(@Req() req: AuthenticatedRequest): Promise<{ url: string; expiresInSeconds: number }> {
    const token = await this.jwt.signAsync(
      { purpose: 'export', sub: req.user!.sub, jti: randomUUID() },
      { expiresIn: LINK_SECONDS },
    );
    return {
      url: `/api/admin/export/download?t=${encodeURIComponent(token)}`,
      expiresInSeconds: LINK_SECONDS,
    };
  }

  @Get('download')
  async download(@Query('t') token: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    let claims: { purpose?: string; jti?: string };
    try {
      claims = await this.jwt.verifyAsync(String(token ?? ''), { algorithms: ['HS256'] });
    } catch {
      throw new ApiError(401, ErrorText.invalidToken);
    }
    if (claims.purpose !== 'export' || !claims.jti || this.usedLinks.has(claims.jti))
      throw new ApiError(401, ErrorText.invalidToken);
    this.usedLinks.add(claims.jti);
    setTimeout(() => this.usedLinks.delete(claims.jti!), LINK_SECONDS * 1000).unref();
    return this.send(req, res);
  }

  private async send(req: Request, res: Response): Promise<void> {
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
