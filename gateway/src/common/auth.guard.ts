import {
  applyDecorators,
  Injectable,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { ErrorText, isAdmin, type TokenClaims } from '@blog/contracts';
import type { Request } from 'express';
import { ApiError } from './api-error.js';
import { bearerToken } from './bearer-token.js';
import { SessionVerifier } from './session-verifier.js';

export interface AuthenticatedRequest extends Request {
  user?: TokenClaims;
}

/** A route for signed-in users: 401 without a token, or with one that does not verify or was revoked. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly sessions: SessionVerifier) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new ApiError(401, ErrorText.unauthorized);
    let claims: TokenClaims;
    try {
      claims = await this.sessions.verify(token);
    } catch (error) {
      if (error instanceof ApiError) throw error; // the auth service could not be asked (503)
      throw new ApiError(401, ErrorText.invalidToken);
    }
    request.user = claims;
    return true;
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
