import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a server-side fetch of a user's (or a remote server's) URL may reach.
 * Public unicast only: everything that can point inside the host, its network or its cloud
 * (loopback, private, link-local with the metadata endpoint, CGNAT, multicast, reserved,
 * documentation, benchmarking) is refused unless the operator allowed it (OUTBOUND_ALLOW).
 */

/** IPv4 ranges never fetched (IANA special-purpose registry, the ones that are not global). */
const FORBIDDEN_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 reaches the host itself on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

/**
 * IPv6: only global unicast (2000::/3) is ever public; inside it these are not. Addresses
 * that embed an IPv4 one (IPv4-mapped, NAT64, 6to4) are judged by the IPv4 address.
 */
const FORBIDDEN_V6_IN_GLOBAL: [string, number][] = [
  ['2001::', 32], // Teredo: the real endpoint is obfuscated inside
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

const forbiddenV4 = new BlockList();
for (const [net, prefix] of FORBIDDEN_V4) forbiddenV4.addSubnet(net, prefix, 'ipv4');
const forbiddenV6 = new BlockList();
for (const [net, prefix] of FORBIDDEN_V6_IN_GLOBAL) forbiddenV6.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a zone such as `%eth0` is dropped), or null. */
export function ipv6Groups(address: string): number[] | null {
  const plain = address.replace(/%.*$/, '');
  if (isIP(plain) !== 6) return null;
  let text = plain;
  // A trailing dotted IPv4 part (::ffff:127.0.0.1) becomes two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 ? groups : null;
}

const v4FromGroups = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** The IPv4 address an IPv6 one carries and that a packet to it would reach, if any. */
export function embeddedIPv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (IPv4-mapped), ::ffff:0:a.b.c.d (IPv4-translated)
  if (zeros(0, 5) && g[5] === 0xffff) return v4FromGroups(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4FromGroups(g[6]!, g[7]!);
  // 64:ff9b::a.b.c.d, the well-known NAT64 prefix
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4FromGroups(g[6]!, g[7]!);
  // 2002:aabb:ccdd::/48, 6to4
  if (g[0] === 0x2002) return v4FromGroups(g[1]!, g[2]!);
  return null;
}

/** True when no fetch may reach this IP address (IPv4 or IPv6) without an explicit allowance. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return forbiddenV4.check(address, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIPv4(address);
  if (inner !== null) return forbiddenV4.check(inner, 'ipv4');
  const groups = ipv6Groups(address)!;
  // Outside 2000::/3: ::, ::1, the IPv4-compatible ::/96, 64:ff9b:1::/48, fc00::/7
  // (unique local), fe80::/10 (link-local), fec0::/10, ff00::/8 (multicast), …
  if ((groups[0]! & 0xe000) !== 0x2000) return true;
  return forbiddenV6.check(address.replace(/%.*$/, ''), 'ipv6');
}

/**
 * The operator's exceptions (OUTBOUND_ALLOW): host names, IP addresses and CIDR ranges,
 * comma-separated. A named host, or an address inside an allowed range, is reached whatever
 * its address and on any port (test servers listen on random ports of 127.0.0.1). The
 * default allows none.
 */
export class OutboundAllowList {
  private readonly hosts = new Set<string>();
  private readonly ranges = new BlockList();
  private readonly count: number;

  constructor(readonly entries: readonly string[] = []) {
    for (const entry of entries) {
      const slash = entry.indexOf('/');
      const ip = slash === -1 ? entry : entry.slice(0, slash);
      const family = isIP(ip);
      if (family) {
        const type = family === 4 ? 'ipv4' : 'ipv6';
        if (slash === -1) this.ranges.addAddress(ip, type);
        else this.ranges.addSubnet(ip, Number(entry.slice(slash + 1)), type);
      } else this.hosts.add(normaliseHost(entry));
    }
    this.count = entries.length;
  }

  get empty(): boolean {
    return this.count === 0;
  }

  allowsHost(hostname: string): boolean {
    return this.hosts.has(normaliseHost(hostname));
  }

  allowsAddress(address: string): boolean {
    const plain = address.replace(/%.*$/, '');
    const family = isIP(plain);
    if (!family) return false;
    if (this.ranges.check(plain, family === 4 ? 'ipv4' : 'ipv6')) return true;
    const inner = family === 6 ? embeddedIPv4(plain) : null;
    return inner !== null && this.ranges.check(inner, 'ipv4');
  }

  /** Parses OUTBOUND_ALLOW; throws with the bad entry named. */
  static parse(value: string | undefined): OutboundAllowList {
    const entries = (value ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    for (const entry of entries) {
      const problem = checkEntry(entry);
      if (problem) throw new Error(`"${entry}": ${problem}`);
    }
    return new OutboundAllowList(entries);
  }
}

/** Lower case, no trailing dot, brackets off an IPv6 literal. */
function normaliseHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

function checkEntry(entry: string): string | null {
  const slash = entry.indexOf('/');
  if (slash !== -1) {
    const family = isIP(entry.slice(0, slash));
    const prefix = entry.slice(slash + 1);
    if (!family) return 'not a host name, IP address or CIDR range';
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128))
      return `the prefix length must be 0 to ${family === 4 ? 32 : 128}`;
    return null;
  }
  if (isIP(entry)) return null;
  // A host name as DNS spells it (no scheme, port or path), label by label.
  const labels = entry.replace(/\.$/, '').split('.');
  if (
    entry.length > 253 ||
    !labels.every((label) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i.test(label))
  )
    return 'not a host name, IP address or CIDR range';
  return null;
}
