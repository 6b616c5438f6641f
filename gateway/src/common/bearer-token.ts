import type { JwtService } from '@nestjs/jwt';
import type { TokenClaims } from '@blog/contracts';

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  return header ? (/^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? null) : null;
}

/**
 * Verifies a token: HS256 only (no `alg: none`, no key confusion), signature, expiry and
 * the claims every route relies on. Throws when any of them is wrong.
 */
export async function verifyToken(jwt: JwtService, token: string): Promise<TokenClaims> {
  const claims = await jwt.verifyAsync<TokenClaims>(token, { algorithms: ['HS256'] });
  if (typeof claims.sub !== 'string' || typeof claims.role !== 'string' || typeof claims.exp !== 'number') {
    throw new Error('incomplete claims');
  }
  return claims;
}
