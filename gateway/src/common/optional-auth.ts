import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { isAdmin } from '@blog/contracts';
import type { Request } from 'express';
import { bearerToken, verifyToken } from './bearer-token.js';

/** On public routes a token is optional: a valid admin token shows more (media still processing). */
@Injectable()
export class OptionalAuth {
  constructor(private readonly jwt: JwtService) {}

  async isAdmin(request: Request): Promise<boolean> {
    const token = bearerToken(request.headers.authorization);
    if (!token) return false;
    try {
      return isAdmin((await verifyToken(this.jwt, token)).role);
    } catch {
      return false;
    }
  }
}
