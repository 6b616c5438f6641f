/** Why a beacon that passed every other check was not counted. */
export type FloodVerdict = 'counted' | 'rate' | 'visitors';

export interface AddressLimitsOptions {
  /** Beacons counted per address in a clock minute. */
  perMinute: number;
  /** Distinct browsers (visitors) counted per address in a UTC day. */
  visitorsPerDay: number;
  /** Addresses tracked in a UTC day; past it a new address counts nothing until the day turns. */
  maxAddresses: number;
}

/** One address's counts: its beacons in `minute`, and its browsers today (one as a string, more in an array). */
interface AddressCounts {
  minute: number;
  hits: number;
  browsers: string | string[];
}

/**
 * The per-address flood limits of POST /api/views, in this gateway's memory: the addresses
 * and browser digests here are never written anywhere, and are forgotten each UTC day (a
 * minute's count starts over when the address is next seen in a new minute). Not the
 * RateWindow of the services: it keeps its keys in PostgreSQL, where an address must never be,
 * and would cost a write per beacon. Each replica counts its own beacons (nginx in front
 * limits the same rate across them). One map entry per address, changed in place: a beacon of
 * a known address allocates nothing.
 */
export class AddressLimits {
  /** Days since the epoch (UTC): a number, so no date string is made per beacon. */
  private day = -1;
  private readonly addresses = new Map<string, AddressCounts>();

  constructor(private readonly options: AddressLimitsOptions) {}

  /** Counts the beacon of `browser` (a digest) from `client` at `now`, unless a limit is reached. */
  admit(client: string, browser: string, now: Date): FloodVerdict {
    const address = limitKey(client);
    const ms = now.getTime();
    const day = Math.floor(ms / 86_400_000);
    if (day !== this.day) {
      this.day = day;
      this.addresses.clear();
    }
    const minute = Math.floor(ms / 60_000);
    const counts = this.addresses.get(address);
    if (counts === undefined) {
      // Past this many addresses today a new one counts nothing until the day turns.
      if (this.addresses.size >= this.options.maxAddresses) return 'rate';
      if (this.options.perMinute < 1) return 'rate';
      this.addresses.set(address, { minute, hits: 1, browsers: browser });
      return 'counted';
    }
    if (counts.minute !== minute) {
      counts.minute = minute;
      counts.hits = 0;
    }
    if (counts.hits >= this.options.perMinute) return 'rate';
    const known = counts.browsers;
    if (typeof known === 'string') {
      if (known !== browser) {
        if (this.options.visitorsPerDay < 2) return 'visitors';
        counts.browsers = [known, browser];
      }
    } else if (!known.includes(browser)) {
      if (known.length >= this.options.visitorsPerDay) return 'visitors';
      known.push(browser);
    }
    counts.hits++;
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
