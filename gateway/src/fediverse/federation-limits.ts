import {
  FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE,
  FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE,
  FEDERATION_READS_PER_ADDRESS_PER_MINUTE,
} from '@blog/contracts';
import { limitKey } from '../stats/address-limits.js';

/** Keys counted in one minute, past which a new key is refused until the minute turns (memory stays bounded). */
const MAX_KEYS_PER_MINUTE = 100_000;

/**
 * Fixed clock-minute counters by key, in this gateway's memory (like AddressLimits: nothing is
 * written anywhere, each replica counts its own requests). The whole map starts over when the
 * minute turns, so it never holds more than one minute's keys.
 */
class MinuteCounter {
  private minute = -1;
  private readonly hits = new Map<string, number>();

  constructor(private readonly perMinute: number) {}

  /** Whether `key` may have one more request in the minute of `ms`. Nothing is counted on a refusal. */
  allows(key: string, ms: number): boolean {
    this.turn(ms);
    const hits = this.hits.get(key) ?? 0;
    if (hits >= this.perMinute) return false;
    return hits > 0 || this.hits.size < MAX_KEYS_PER_MINUTE;
  }

  count(key: string, ms: number): void {
    this.turn(ms);
    this.hits.set(key, (this.hits.get(key) ?? 0) + 1);
  }

  private turn(ms: number): void {
    const minute = Math.floor(ms / 60_000);
    if (minute === this.minute) return;
    this.minute = minute;
    this.hits.clear();
  }
}

/** A refusal: the seconds until the minute turns (Retry-After). */
export type LimitVerdict = { allowed: true } | { allowed: false; retryAfter: number };

const refused = (ms: number): LimitVerdict => ({
  allowed: false,
  retryAfter: Math.max(1, Math.ceil((60_000 - (ms % 60_000)) / 1000)),
});

/**
 * The federation's limits on strangers (the numbers are the contracts'). Every inbox POST counts
 * under its address. A remote server's count holds only POSTs whose signature the federation
 * verified (`countVerified`, after the answer): junk that merely names a server's key spends
 * nothing of that server's minute, while a server past its minute is refused before its POST
 * is read (`admitInbox`, by the host its signature claims).
 */
export class FederationLimits {
  private readonly inboxByAddress = new MinuteCounter(FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE);
  private readonly inboxByServer = new MinuteCounter(FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE);
  private readonly readsByAddress = new MinuteCounter(FEDERATION_READS_PER_ADDRESS_PER_MINUTE);

  constructor(private readonly now: () => number = Date.now) {}

  /** An inbox POST from `address` whose signature claims a key of `server` (null: none that parses). */
  admitInbox(address: string, server: string | null): LimitVerdict {
    const ms = this.now();
    const key = limitKey(address);
    if (!this.inboxByAddress.allows(key, ms)) return refused(ms);
    if (server !== null && !this.inboxByServer.allows(server, ms)) return refused(ms);
    this.inboxByAddress.count(key, ms);
    return { allowed: true };
  }

  /** An inbox POST of `server` whose signature verified. */
  countVerified(server: string): void {
    this.inboxByServer.count(server.toLowerCase(), this.now());
  }

  /** Any other federation request (webfinger, NodeInfo, the actor, an Article). */
  admitRead(address: string): LimitVerdict {
    const ms = this.now();
    const key = limitKey(address);
    if (!this.readsByAddress.allows(key, ms)) return refused(ms);
    this.readsByAddress.count(key, ms);
    return { allowed: true };
  }
}
