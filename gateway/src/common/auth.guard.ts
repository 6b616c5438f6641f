import {
  applyDecorators,
  Injectable,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ErrorText, isAdmin, type TokenClaims } from '@blog/contracts';
import type { Request } from 'express';
import { ApiError } from './api-error.js';

export interface AuthenticatedRequest extends Request {
  user?: TokenClaims;
}

/** Verifies the Bearer token: HS256 only (no `alg: none`, no key confusion), signature and expiry. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly jwt: JwtService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new ApiError(401, ErrorText.unauthorized);
    try {
      const claims = await this.jwt.verifyAsync<TokenClaims>(match[1], { algorithms: ['HS256'] });
      if (
        typeof claims.sub !== 'string' ||
        typeof claims.role !== 'string' ||
        typeof claims.exp !== 'number'
      ) {
        throw new Error('incomplete claims');
      }
      request.user = claims;
      return true;
    } catch {
      throw new ApiError(401, ErrorText.invalidToken);
    }
  }
}

@Injectable()
export class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!isAdmin(request.user?.role)) throw new ApiError(403, ErrorText.forbidden);
    return true;
  }
}

/** A route only a signed-in admin may call: 401 without a valid token, 403 for other roles. */
export const AdminOnly = () => applyDecorators(UseGuards(AuthGuard, AdminGuard));
