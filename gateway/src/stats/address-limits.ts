/** Why a beacon that passed every other check was not counted. */
export type FloodVerdict = 'counted' | 'rate' | 'visitors';

export interface AddressLimitsOptions {
  /** Beacons counted per address in a clock minute. */
  perMinute: number;
  /** Distinct browsers (visitors) counted per address in a UTC day. */
  visitorsPerDay: number;
  /** Addresses tracked at once; past it a new address counts nothing until the window turns. */
  maxAddresses: number;
}

/**
 * The per-address flood limits of POST /api/views, in this gateway's memory: the addresses
 * and browser digests here are never written anywhere, and are forgotten each minute (the rate)
 * and each UTC day (the visitors). Not the RateWindow of the services: it keeps its keys in
 * PostgreSQL, where an address must never be, and would cost a write per beacon. Each replica
 * counts its own beacons (nginx in front limits the same rate across them).
 */
export class AddressLimits {
  private minute = -1;
  private readonly hits = new Map<string, number>();
  private day = '';
  /** An address's first browser as a string, a Set from its second: most addresses have one. */
  private readonly browsers = new Map<string, string | Set<string>>();

  constructor(private readonly options: AddressLimitsOptions) {}

  /** Counts the beacon of `browser` (a digest) from `address` at `now`, unless a limit is reached. */
  admit(address: string, browser: string, now: Date): FloodVerdict {
    const minute = Math.floor(now.getTime() / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.hits.clear();
    }
    const day = now.toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.browsers.clear();
    }
    const hits = this.hits.get(address) ?? 0;
    if (hits >= this.options.perMinute) return 'rate';
    if (!hits && this.hits.size >= this.options.maxAddresses) return 'rate';
    const known = this.browsers.get(address);
    if (known === undefined) {
      if (this.browsers.size >= this.options.maxAddresses) return 'visitors';
      this.browsers.set(address, browser);
    } else if (typeof known === 'string') {
      if (known !== browser) {
        if (this.options.visitorsPerDay < 2) return 'visitors';
        this.browsers.set(address, new Set([known, browser]));
      }
    } else if (!known.has(browser)) {
      if (known.size >= this.options.visitorsPerDay) return 'visitors';
      known.add(browser);
    }
    this.hits.set(address, hits + 1);
    return 'counted';
  }
}
