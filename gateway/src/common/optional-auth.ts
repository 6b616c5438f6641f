import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { isAdmin, type TokenClaims } from '@blog/contracts';
import type { Request } from 'express';

/** On public routes a token is optional: a valid admin token shows more (media still processing). */
@Injectable()
export class OptionalAuth {
  constructor(private readonly jwt: JwtService) {}

  async isAdmin(request: Request): Promise<boolean> {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match) return false;
    try {
      const claims = await this.jwt.verifyAsync<TokenClaims>(match[1]!, { algorithms: ['HS256'] });
      return isAdmin(claims.role);
    } catch {
      return false;
    }
  }
}
