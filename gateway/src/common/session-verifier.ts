import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { Patterns, type SessionState, type TokenClaims } from '@blog/contracts';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { ServiceClients } from '../rpc/service-clients.js';
import { verifyToken } from './bearer-token.js';

interface Cached {
  state: Promise<SessionState | null>;
  at: number;
  /** The last state the auth service answered, used while it cannot be asked. */
  known?: SessionState | null;
}

/**
 * Verifies a token (signature, expiry, claims) and that it is still the account's current
 * session: the account exists and its session version is the token's (a password change,
 * a role change or "sign out everywhere" raises it). The account's state is asked of the
 * auth service at most once per SESSION_CHECK_TTL_MS per account, so a request with a token
 * costs a map lookup; every replica sees a revocation within that time, this one at once.
 */
@Injectable()
export class SessionVerifier {
  private readonly states = new Map<string, Cached>();

  constructor(
    private readonly jwt: JwtService,
    private readonly services: ServiceClients,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** The token's claims with the account's current role; throws when the token is not valid now. */
  async verify(token: string): Promise<TokenClaims> {
    const claims = await verifyToken(this.jwt, token);
    const state = await this.stateOf(claims.sub);
    if (!state || state.sessionVersion !== (claims.sv ?? 0)) throw new Error('session revoked');
    return { ...claims, role: state.role };
  }

  /**
   * `verify` with the account's state asked of the auth service now, never from the cache: for
   * a request that must see a sign-out or role change made a moment ago on any replica.
   */
  async verifyNow(token: string): Promise<TokenClaims> {
    const claims = await verifyToken(this.jwt, token);
    this.states.delete(claims.sub);
    return this.verify(token);
  }

  /** Drops what this replica knows of an account after it forwarded a change to it. */
  forget(userId: string): void {
    this.states.delete(userId);
  }

  private stateOf(userId: string): Promise<SessionState | null> {
    const now = Date.now();
    const cached = this.states.get(userId);
    if (cached && now - cached.at < this.config.SESSION_CHECK_TTL_MS) return cached.state;
    if (this.states.size > 10_000) this.states.clear(); // bounded: tokens of many accounts
    const entry: Cached = { at: now, known: cached?.known, state: Promise.resolve(null) };
    entry.state = this.services.read('auth', Patterns.auth.sessionState, { id: userId }).then(
      (state) => {
        entry.known = state;
        return state;
      },
      (error: unknown) => {
        if (this.states.get(userId) === entry) this.states.delete(userId);
        // The auth service cannot be asked: the last answer stands; with none, the request fails.
        if (entry.known !== undefined) return entry.known;
        throw error;
      },
    );
    this.states.set(userId, entry);
    return entry.state;
  }
}
