import { Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ErrorText, isAdmin, Patterns } from '@blog/contracts';
import express, { type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../common/api-error.js';
import { AdminOnly, type AuthenticatedRequest } from '../common/auth.guard.js';
import { SessionVerifier } from '../common/session-verifier.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { ExportService } from './export.service.js';

/** A download link works this long, once: long enough to start the download, useless later. */
const LINK_SECONDS = 60;
const DOWNLOAD_PATH = '/api/admin/export/download';
const parseForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 4 });

interface LinkClaims {
  purpose?: string;
  sub?: string;
  jti?: string;
  exp?: number;
}

/**
 * Taking the blog out: everything in one .zip, streamed as it is made. With the bearer token
 * (scripts, curl), or from the dashboard through a one-time link: the browser posts a form
 * with the link's token and its session, so it saves a multi-gigabyte archive straight to disk
 * instead of holding it in memory, and no token ever sits in a URL (or a server's access log).
 */
@Controller('api/admin/export')
export class ExportController {
  constructor(
    private readonly exports: ExportService,
    private readonly jwt: JwtService,
    private readonly sessions: SessionVerifier,
    private readonly services: ServiceClients,
  ) {}

  @Get()
  @AdminOnly()
  export(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.send(req, res);
  }

  /** The one-time token the dashboard posts to `action` with its session token. */
  @Post('link')
  @HttpCode(200)
  @AdminOnly()
  async link(
    @Req() req: AuthenticatedRequest,
  ): Promise<{ action: string; token: string; expiresInSeconds: number }> {
    const token = await this.jwt.signAsync(
      { purpose: 'export', sub: req.user!.sub, jti: randomUUID() },
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
    if (link.purpose !== 'export' || !link.jti || !link.sub || !link.exp)
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
    const first = await this.services.call<boolean>('posts', Patterns.posts.claimExportLink, {
      id: link.jti,
      expiresAt: new Date(link.exp * 1000).toISOString(),
    });
    if (!first) throw new ApiError(401, ErrorText.invalidToken);
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
