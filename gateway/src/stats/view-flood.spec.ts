import type { RecordedView } from '@blog/contracts';
import { AddressLimits, limitKey } from './address-limits.js';
import { BATCH_MAX_BYTES, viewsThatFit } from './view-counter.js';
import { WaitingQueue } from './waiting-queue.js';

/** NATS's default max_payload: a bigger message is refused. */
const NATS_MAX_PAYLOAD = 1024 * 1024;

describe('views handed over in batches below the transport limit', () => {
  /** The largest view a beacon can make: every field at its longest. */
  const view = (i: number): RecordedView => ({
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString(),
    path: `/${'p'.repeat(490)}/${String(i).padStart(6, '0')}`,
    kind: 'post',
    slug: `${'s'.repeat(190)}-${i}`,
    visitor: 'f'.repeat(64),
    referrerHost: `${'r'.repeat(240)}.example`,
    device: 'desktop',
    country: 'DE',
  });

  it('splits 5,000 of the largest views into batches each well below 1 MB serialized, losing none', () => {
    const views = Array.from({ length: 5000 }, (_, i) => view(i));
    expect(Buffer.byteLength(JSON.stringify({ id: 'x', views }))).toBeGreaterThan(4 * NATS_MAX_PAYLOAD);
    const batches: RecordedView[][] = [];
    for (let rest = views; rest.length;) {
      const n = viewsThatFit(rest, BATCH_MAX_BYTES);
      expect(n).toBeGreaterThan(0);
      batches.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    expect(batches.length).toBeGreaterThan(4);
    for (const batch of batches) {
      // As the transport carries it: the batch with its id inside the RPC envelope.
      const message = JSON.stringify({
        pattern: 'posts.recordViews',
        data: { data: { id: crypto.randomUUID(), views: batch }, context: {} },
        id: crypto.randomUUID(),
      });
      expect(Buffer.byteLength(message)).toBeLessThanOrEqual(BATCH_MAX_BYTES);
      expect(Buffer.byteLength(message)).toBeLessThan(NATS_MAX_PAYLOAD / 2);
    }
    expect(batches.flat()).toEqual(views);
  });

  it('takes every view when they fit, and one when even one is over (never stuck)', () => {
    expect(viewsThatFit([view(1), view(2)], BATCH_MAX_BYTES)).toBe(2);
    expect(viewsThatFit([view(1), view(2)], 10)).toBe(1);
    expect(viewsThatFit([], BATCH_MAX_BYTES)).toBe(0);
  });
});

describe('the waiting queue', () => {
  it('refuses past its capacity and counts what it refused, instead of growing', () => {
    const queue = new WaitingQueue<number>(3);
    expect([1, 2, 3, 4, 5].map((n) => queue.push(n))).toEqual([true, true, true, false, false]);
    expect(queue.length).toBe(3);
    expect(queue.dropped).toBe(2);
    expect(queue.peek(2)).toEqual([1, 2]);
    queue.remove(2);
    expect(queue.push(6)).toBe(true);
    expect(queue.peek(10)).toEqual([3, 6]);
    expect(queue.dropped).toBe(2);
  });

  it('keeps order through many takes (the array is compacted as it goes)', () => {
    const queue = new WaitingQueue<number>(10_000);
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 300; i++) queue.push(next++);
      const taken = queue.peek(250);
      expect(taken[0]).toBe(expected);
      expected += taken.length;
      queue.remove(taken.length);
    }
    expect(queue.length).toBe(next - expected);
    expect(queue.peek(1)).toEqual([expected]);
  });
});

describe('per-address flood limits', () => {
  const at = (iso: string) => new Date(iso);
  const limits = () => new AddressLimits({ perMinute: 60, visitorsPerDay: 50, maxAddresses: 1000 });

  it('counts 60 beacons a minute from one address, then none until the next minute', () => {
    const l = limits();
    const verdicts = Array.from({ length: 100 }, () =>
      l.admit('203.0.113.1', 'b1', at('2026-01-01T10:00:30Z')),
    );
    expect(verdicts.filter((v) => v === 'counted')).toHaveLength(60);
    expect(verdicts.slice(60).every((v) => v === 'rate')).toBe(true);
    // Another address is not affected; the next minute counts again.
    expect(l.admit('203.0.113.2', 'b1', at('2026-01-01T10:00:59Z'))).toBe('counted');
    expect(l.admit('203.0.113.1', 'b1', at('2026-01-01T10:01:00Z'))).toBe('counted');
  });

  it('counts at most 50 browsers from one address a day; a known one still counts; the next day starts over', () => {
    const l = limits();
    const verdicts = Array.from({ length: 3000 }, (_, i) =>
      l.admit(
        '198.51.100.7',
        `browser ${i}`,
        at(
          `2026-01-01T${String(Math.floor(i / 60) % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`,
        ),
      ),
    );
    expect(verdicts.filter((v) => v === 'counted')).toHaveLength(50);
    expect(l.admit('198.51.100.7', 'browser 7', at('2026-01-01T23:00:00Z'))).toBe('counted');
    expect(l.admit('198.51.100.7', 'browser 2999', at('2026-01-01T23:00:00Z'))).toBe('visitors');
    expect(l.admit('198.51.100.7', 'browser 2999', at('2026-01-02T00:00:00Z'))).toBe('counted');
  });

  it('tracks a bounded number of addresses: past it a new address counts nothing that minute', () => {
    const l = new AddressLimits({ perMinute: 60, visitorsPerDay: 50, maxAddresses: 3 });
    const now = at('2026-01-01T10:00:00Z');
    expect(['a', 'b', 'c', 'd'].map((a) => l.admit(a, 'x', now))).toEqual([
      'counted',
      'counted',
      'counted',
      'rate',
    ]);
    expect(l.admit('a', 'x', now)).toBe('counted');
  });
});

describe('what the flood limits count by', () => {
  it('an IPv4 address itself (IPv4-mapped too), an IPv6 address by its /64', () => {
    expect(limitKey('203.0.113.9')).toBe('203.0.113.9');
    expect(limitKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(limitKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(limitKey('::1')).toBe('0:0:0:0::/64');
  });

  it('one host taking a new IPv6 address per beacon stays one client', () => {
    const l = new AddressLimits({ perMinute: 60, visitorsPerDay: 50, maxAddresses: 1000 });
    const now = new Date('2026-01-01T10:00:00Z');
    const verdicts = Array.from({ length: 100 }, (_, i) =>
      l.admit(`2001:db8:5:6::${i.toString(16)}`, 'b', now),
    );
    expect(verdicts.filter((v) => v === 'counted')).toHaveLength(60);
  });
});
