import { randomUUID } from 'node:crypto';
import { Patterns } from './rpc.js';
import { RpcContracts } from './rpc-contracts.js';

describe('the typed patterns', () => {
  it('are all of Patterns, each with a request schema', () => {
    const names = Object.values(Patterns).flatMap((service) => Object.values(service));
    expect(Object.keys(RpcContracts).sort()).toEqual([...names].sort());
    for (const contract of Object.values(RpcContracts))
      expect(typeof contract.request.safeParse).toBe('function');
  });

  it('take a request without data as {} with its defaults, where the handler always did', () => {
    const list = RpcContracts[Patterns.mail.listMessages].request;
    expect(list.parse(undefined)).toEqual(list.parse({}));
    // ...and refuse it as they refuse {} where a field is required.
    const urls = RpcContracts[Patterns.posts.urls].request;
    expect(urls.safeParse(undefined).error?.issues).toEqual(urls.safeParse({}).error?.issues);
    expect(urls.safeParse(undefined).success).toBe(false);
    expect(RpcContracts[Patterns.posts.delete].request.parse({ id: '12' })).toEqual({ id: 12 });
  });

  it('take visitor keys of 16 hex digits, and of 64 from a gateway not yet upgraded; nothing else', () => {
    const batch = (visitor: string) => ({
      id: randomUUID(),
      views: [
        {
          at: '2026-01-01T10:00:00.000Z',
          path: '/p/hello',
          kind: 'post',
          slug: 'hello',
          visitor,
          referrerHost: null,
          device: 'desktop',
          country: null,
        },
      ],
    });
    const request = RpcContracts[Patterns.posts.recordViews].request;
    expect(request.safeParse(batch('0123456789abcdef')).success).toBe(true);
    expect(request.safeParse(batch('a'.repeat(64))).success).toBe(true);
    for (const bad of ['0123456789abcde', 'a'.repeat(20), '0123456789ABCDEF', 'g'.repeat(16)])
      expect(request.safeParse(batch(bad)).success).toBe(false);
  });
});
