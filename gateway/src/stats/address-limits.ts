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
  /** Days since the epoch (UTC): a number, so no date string is made per beacon. */
  private day = -1;
  /** An address's first browser as a string, a Set from its second: most addresses have one. */
  private readonly browsers = new Map<string, string | Set<string>>();

  constructor(private readonly options: AddressLimitsOptions) {}

  /** Counts the beacon of `browser` (a digest) from `client` at `now`, unless a limit is reached. */
  admit(client: string, browser: string, now: Date): FloodVerdict {
    const address = limitKey(client);
    const ms = now.getTime();
    const minute = Math.floor(ms / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.hits.clear();
    }
    const day = Math.floor(ms / 86_400_000);
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

/**
 * What the limits count by: an IPv4 address itself, an IPv6 address by its /64 (one
 * subscriber's network: a flood from one host could otherwise take a new address per beacon).
 */
export function limitKey(address: string): string {
  if (!address.includes(':')) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = address.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
