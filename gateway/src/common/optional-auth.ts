import { Injectable } from '@nestjs/common';
import { isAdmin } from '@blog/contracts';
import type { Request } from 'express';
import { bearerToken } from './bearer-token.js';
import { SessionVerifier } from './session-verifier.js';

/** On public routes a token is optional: a valid admin token shows more (media still processing). */
@Injectable()
export class OptionalAuth {
  constructor(private readonly sessions: SessionVerifier) {}

  async isAdmin(request: Request): Promise<boolean> {
    const token = bearerToken(request.headers.authorization);
    if (!token) return false;
    try {
      return isAdmin((await this.sessions.verify(token)).role);
    } catch {
      return false;
    }
  }
}
