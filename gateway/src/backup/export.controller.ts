import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ErrorText, exportArchiveKey, isAdmin, Patterns, type ExportReport } from '@blog/contracts';
import type { ObjectStorage } from '@blog/server-kit';
import express, { type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../common/api-error.js';
import { AdminOnly, type AuthenticatedRequest } from '../common/auth.guard.js';
import { SessionVerifier } from '../common/session-verifier.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { STORAGE } from '../tokens.js';

/** A download link works this long, once: long enough to start the download, useless later. */
const LINK_SECONDS = 60;
const DOWNLOAD_PATH = '/api/admin/export/download';
const parseForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 4 });

interface LinkClaims {
  purpose?: string;
  sub?: string;
  jti?: string;
  exp?: number;
  /** The export whose archive the link downloads. */
  export?: string;
}

/**
 * Taking the blog out: the posts service writes the whole blog into one .zip as a job (started
 * here, followed by its report), and this gateway, whichever replica, streams the finished
 * archive from private storage. Scripts download it with the bearer token; the dashboard
 * through a one-time link: the browser posts a form with the link's token and its session, so
 * it saves a multi-gigabyte archive straight to disk, and no token ever sits in a URL.
 */
@Controller('api/admin/export')
export class ExportController {
  constructor(
    private readonly jwt: JwtService,
    private readonly sessions: SessionVerifier,
    private readonly services: ServiceClients,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
  ) {}

  /** 202 with the export's report; GET …/jobs/{id} follows it. */
  @Post()
  @HttpCode(202)
  @AdminOnly()
  start(): Promise<ExportReport> {
    return this.services.call('posts', Patterns.posts.exportStart, {});
  }

  @Get('jobs/:id')
  @AdminOnly()
  report(@Param('id') id: string): Promise<ExportReport> {
    return this.services.read('posts', Patterns.posts.exportReport, { id });
  }

  /** The finished archive, with the bearer token (scripts, curl). */
  @Get('jobs/:id/archive')
  @AdminOnly()
  async archive(@Param('id') id: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.send(await this.finished(id), req, res);
  }

  /** The one-time token for a finished export, which the dashboard posts to `action` with its session token. */
  @Post('link')
  @HttpCode(200)
  @AdminOnly()
  async link(
    @Req() req: AuthenticatedRequest,
    @Body() body: { id?: unknown } | undefined,
  ): Promise<{ action: string; token: string; expiresInSeconds: number }> {
    const report = await this.finished(String(body?.id ?? ''));
    const token = await this.jwt.signAsync(
      { purpose: 'export', sub: req.user!.sub, jti: randomUUID(), export: report.id },
      { expiresIn: LINK_SECONDS },
    );
    return { action: DOWNLOAD_PATH, token, expiresInSeconds: LINK_SECONDS };
  }

  /**
   * The form post (fields `token` and `session`): the link must verify and be unused on every
   * replica, and the session must still be its account's current one, asked of the auth
   * service now (a sign-out everywhere or a role change a moment ago refuses it), and an admin's.
   */
  @Post('download')
  async download(@Req() req: Request, @Res() res: Response): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      parseForm(req, res, (error) => (error ? reject(new ApiError(400, ErrorText.invalidToken)) : resolve())),
    );
    const form = (req.body ?? {}) as Record<string, unknown>;
    let link: LinkClaims;
    try {
      link = await this.jwt.verifyAsync<LinkClaims>(String(form.token ?? ''), { algorithms: ['HS256'] });
    } catch {
      throw new ApiError(401, ErrorText.invalidToken);
    }
    if (link.purpose !== 'export' || !link.jti || !link.sub || !link.exp || !link.export)
      throw new ApiError(401, ErrorText.invalidToken);
    let session;
    try {
      session = await this.sessions.verifyNow(String(form.session ?? ''));
    } catch (error) {
      if (error instanceof ApiError) throw error; // the auth service could not be asked (503)
      throw new ApiError(401, ErrorText.invalidToken);
    }
    if (session.sub !== link.sub) throw new ApiError(401, ErrorText.invalidToken);
    if (!isAdmin(session.role)) throw new ApiError(403, ErrorText.forbidden);
    const report = await this.finished(link.export);
    const first = await this.services.call('posts', Patterns.posts.claimExportLink, {
      id: link.jti,
      expiresAt: new Date(link.exp * 1000).toISOString(),
    });
    if (!first) throw new ApiError(401, ErrorText.invalidToken);
    return this.send(report, req, res);
  }

  /** The export's report when its archive is ready, else 409 saying where it stands. */
  private async finished(id: string): Promise<ExportReport> {
    const report = await this.services.read('posts', Patterns.posts.exportReport, { id });
    if (report.state === 'failed')
      throw new ApiError(409, `The export failed: ${report.reason ?? ''}`.trim());
    if (report.state !== 'done') throw new ApiError(409, `The export is not finished (${report.percent}%)`);
    return report;
  }

  private async send(report: ExportReport, req: Request, res: Response): Promise<void> {
    const archive = await this.storage.get(exportArchiveKey(report.id));
    if (!archive) throw new ApiError(410, 'This export is no longer kept: start a new one');
    req.on('close', () => archive.body.destroy());
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Length', String(archive.size));
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="blog-export-${report.createdAt.slice(0, 10)}.zip"`,
    );
    res.setHeader('Cache-Control', 'no-store');
    await pipeline(archive.body, res).catch(() => res.destroy());
  }
}
