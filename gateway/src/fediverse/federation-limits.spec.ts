import {
  FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE,
  FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE,
  FEDERATION_READS_PER_ADDRESS_PER_MINUTE,
} from '@blog/contracts';
import { FederationLimits } from './federation-limits.js';

describe('FederationLimits', () => {
  /** 10 s into a minute. */
  let now = Date.UTC(2026, 0, 1, 12, 0, 10);
  const limits = () => new FederationLimits(() => now);

  it('counts inbox POSTs per address until the minute turns, with the seconds left as Retry-After', () => {
    const l = limits();
    for (let i = 0; i < FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE; i++)
      expect(l.admitInbox('203.0.113.1', null)).toEqual({ allowed: true });
    expect(l.admitInbox('203.0.113.1', null)).toEqual({ allowed: false, retryAfter: 50 });
    expect(l.admitInbox('203.0.113.2', null)).toEqual({ allowed: true });
    now += 50_000;
    expect(l.admitInbox('203.0.113.1', null)).toEqual({ allowed: true });
  });

  it('counts only verified POSTs against a server, and a refusal by the server spends nothing of the address', () => {
    const l = limits();
    // Junk naming the server's key, from many addresses: admitted per address, never counted for the server.
    for (let i = 0; i < 2 * FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE; i++)
      expect(l.admitInbox(`203.0.${i % 250}.${Math.floor(i / 250)}`, 'flood.example').allowed).toBe(true);
    expect(l.admitInbox('192.0.2.9', 'flood.example').allowed).toBe(true);
    for (let i = 0; i < FEDERATION_INBOX_POSTS_PER_SERVER_PER_MINUTE; i++) {
      expect(l.admitInbox(`198.51.100.${i % 50}`, 'flood.example').allowed).toBe(true);
      l.countVerified('flood.example');
    }
    expect(l.admitInbox('192.0.2.1', 'flood.example').allowed).toBe(false);
    expect(l.admitInbox('192.0.2.1', 'calm.example').allowed).toBe(true);
    // The refused POSTs above did not count against 192.0.2.1.
    for (let i = 1; i < FEDERATION_INBOX_POSTS_PER_ADDRESS_PER_MINUTE; i++)
      expect(l.admitInbox('192.0.2.1', null).allowed).toBe(true);
    expect(l.admitInbox('192.0.2.1', null).allowed).toBe(false);
  });

  it('counts other requests per address, an IPv6 host by its /64, apart from the inbox counts', () => {
    const l = limits();
    for (let i = 0; i < FEDERATION_READS_PER_ADDRESS_PER_MINUTE; i++)
      expect(l.admitRead(`2001:db8:1:2::${(i % 100).toString(16)}`).allowed).toBe(true);
    expect(l.admitRead('2001:db8:1:2:ffff::1').allowed).toBe(false);
    expect(l.admitRead('2001:db8:1:3::1').allowed).toBe(true);
    expect(l.admitInbox('2001:db8:1:2::1', null).allowed).toBe(true);
  });
});
