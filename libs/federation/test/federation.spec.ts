import '../src/temporal.js';
import { OutboundAllowList } from '@blog/server-kit';
import { article, startBlog, startMastodon, type BlogInstance, type MastodonFixture } from './support/rig.js';

const AP = 'application/activity+json';

/** The blog's federation over real loopback HTTP: discovery, documents, the middleware, signatures. */
describe('blog federation', () => {
  let a: BlogInstance;
  let alice: MastodonFixture;

  beforeAll(async () => {
    a = await startBlog({ maxInboxBytes: 64 * 1024 });
    alice = await startMastodon();
    a.ports.posts.set(1, article(a.origin, 1, 'First'));
    a.ports.posts.set(2, article(a.origin, 2, 'Second'));
    a.ports.posts.set(3, 'gone');
  });
  afterAll(async () => {
    await a?.close();
    await alice?.close();
  });

  const get = (path: string, accept = AP) => fetch(`${a.origin}${path}`, { headers: { accept } });

  it('webfinger maps the configured handle to the fixed actor id (the self link)', async () => {
    const host = new URL(a.origin).host;
    const res = await get(`/.well-known/webfinger?resource=acct:journal@${host}`, 'application/jrd+json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/jrd+json');
    const jrd = (await res.json()) as {
      subject: string;
      links: { rel: string; href: string; type?: string }[];
    };
    expect(jrd.links).toContainEqual(
      expect.objectContaining({ rel: 'self', href: `${a.origin}/ap/actor/blog`, type: AP }),
    );
    // An unknown account is not Fedify's: the blog's own 404 answers (here the stand-in route).
    const before = a.passedThrough.length;
    await get(`/.well-known/webfinger?resource=acct:someone@${host}`, 'application/jrd+json');
    expect(a.passedThrough.slice(before)).toEqual([
      `GET /.well-known/webfinger?resource=acct:someone@${host}`,
    ]);
  });

  it('the actor: name, summary, url, icon, inbox, shared inbox, collections, RSA and Ed25519 keys', async () => {
    const res = await get('/ap/actor/blog');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain(AP);
    const actor = (await res.json()) as Record<string, unknown>;
    expect(actor).toMatchObject({
      id: `${a.origin}/ap/actor/blog`,
      type: 'Person',
      preferredUsername: 'journal',
      name: 'A test journal',
      summary: '<p>Notes from the garden.</p>',
      url: `${a.origin}/`,
      inbox: `${a.origin}/ap/actor/blog/inbox`,
      endpoints: { sharedInbox: `${a.origin}/ap/inbox` },
      outbox: `${a.origin}/ap/actor/blog/outbox`,
      followers: `${a.origin}/ap/actor/blog/followers`,
      following: `${a.origin}/ap/actor/blog/following`,
      icon: { type: 'Image', url: `${a.origin}/media/avatar.png` },
      manuallyApprovesFollowers: false,
    });
    const publicKey = actor.publicKey as { id: string; publicKeyPem: string };
    expect(publicKey.publicKeyPem).toContain('BEGIN PUBLIC KEY');
    const methods = actor.assertionMethod as { type: string; publicKeyMultibase: string }[];
    expect(methods).toHaveLength(2);
    expect(methods.every((m) => m.type === 'Multikey')).toBe(true);
    // An Ed25519 multikey starts with z6Mk (multicodec 0xed01), RSA's does not.
    expect(methods.filter((m) => m.publicKeyMultibase.startsWith('z6Mk'))).toHaveLength(1);
    const before = a.passedThrough.length;
    await get('/ap/actor/other');
    expect(a.passedThrough.slice(before)).toEqual(['GET /ap/actor/other']);
  });

  it('NodeInfo 2.1 through its well-known link', async () => {
    const links = (await (await get('/.well-known/nodeinfo', 'application/json')).json()) as {
      links: { rel: string; href: string }[];
    };
    const link = links.links.find((l) => l.rel === 'http://nodeinfo.diaspora.software/ns/schema/2.1');
    expect(link?.href).toBe(`${a.origin}/nodeinfo/2.1`);
    const info = (await (await get('/nodeinfo/2.1', 'application/json')).json()) as Record<string, unknown>;
    expect(info).toMatchObject({
      version: '2.1',
      software: { name: 'personal-blog' },
      protocols: ['activitypub'],
      openRegistrations: false,
      usage: { localPosts: 2, users: { total: 1 } },
    });
  });

  it('an Article for a visible post, an unknown or draft one passed to the blog 404 route, 410 for a deleted one', async () => {
    const res = await get('/post/1');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      id: `${a.origin}/post/1`,
      type: 'Article',
      name: 'First',
      attributedTo: `${a.origin}/ap/actor/blog`,
      url: `${a.origin}/garden/post-1`,
      to: 'as:Public',
      cc: `${a.origin}/ap/actor/blog/followers`,
    });
    expect(String(doc.content)).toContain(`href="${a.origin}/tags/garden"`);
    expect(doc.tag).toMatchObject({ type: 'Hashtag', name: '#garden' });
    expect(doc.attachment).toMatchObject({ type: 'Image', url: `${a.origin}/media/1.jpg`, name: 'A photo' });
    // A draft is null to the port: Fedify passes it on and the blog's own route answers (here the stand-in).
    const before = a.passedThrough.length;
    expect((await get('/post/9')).status).toBe(200);
    expect(a.passedThrough.slice(before)).toEqual(['GET /post/9']);
    const goneRes = await get('/post/3');
    expect(goneRes.status).toBe(410);
    // The outbox: newest first, paged.
    const first = (await (await get('/ap/actor/blog/outbox?cursor=0')).json()) as {
      orderedItems: { id: string; type: string; object: string }[];
    };
    expect(first.orderedItems.map((i) => [i.type, i.id, i.object])).toEqual([
      ['Create', `${a.origin}/post/2#create`, `${a.origin}/post/2`],
      ['Create', `${a.origin}/post/1#create`, `${a.origin}/post/1`],
    ]);
  });

  it('HTML requests pass through to the blog: the page answers, nothing is written twice', async () => {
    const before = a.passedThrough.length;
    for (const path of ['/ap/actor/blog', '/post/1', '/post/3', '/about']) {
      const res = await get(path, 'text/html');
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<title>page</title>');
    }
    expect(a.passedThrough.slice(before)).toEqual([
      'GET /ap/actor/blog',
      'GET /post/1',
      'GET /post/3',
      'GET /about',
    ]);
  });

  const follow = (id: string) => ({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${alice.actorId}#follows/${id}`,
    type: 'Follow',
    actor: alice.actorId,
    object: `${a.origin}/ap/actor/blog`,
  });

  it('signature cases: none, wrong key, a two-hour-old Date, a body changed after signing: 401, nothing stored', async () => {
    const inbox = `${a.origin}/ap/inbox`;
    const writes = a.ports.writes;
    const unsigned = await fetch(inbox, {
      method: 'POST',
      headers: { 'content-type': AP },
      body: JSON.stringify(follow('unsigned')),
    });
    expect(unsigned.status).toBe(401);

    const { generateCryptoKeyPair } = await import('@fedify/fedify');
    const other = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    expect(
      (await fetch(await alice.signedPost(inbox, follow('wrong-key'), { key: other.privateKey }))).status,
    ).toBe(401);
    expect((await fetch(await alice.signedPost(inbox, follow('old'), { hoursAgo: 2 }))).status).toBe(401);

    const signed = await alice.signedPost(inbox, follow('swapped'));
    const swapped = new Request(signed.url, {
      method: 'POST',
      headers: signed.headers,
      body: JSON.stringify(follow('swapped-other')),
    });
    expect((await fetch(swapped)).status).toBe(401);
    expect(a.ports.writes).toBe(writes);
    expect(a.ports.followerRows.size).toBe(0);

    expect((await fetch(await alice.signedPost(inbox, follow('valid')))).status).toBe(202);
    expect([...a.ports.followerRows.keys()]).toEqual([alice.actorId]);
    await a.ports.followers.remove(alice.actorId);
  });

  it('the inbox body cap answers 413 (by Content-Length, and for a chunked body) and stores nothing', async () => {
    const writes = a.ports.writes;
    const big = JSON.stringify({ ...follow('big'), padding: 'x'.repeat(70 * 1024) });
    const res = await fetch(`${a.origin}/ap/inbox`, {
      method: 'POST',
      headers: { 'content-type': AP },
      body: big,
    });
    expect(res.status).toBe(413);
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(10 * 1024)));
        controller.close();
      },
    });
    const res2 = await fetch(`${a.origin}/ap/actor/blog/inbox`, {
      method: 'POST',
      headers: { 'content-type': AP },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(res2.status).toBe(413);
    expect(a.ports.writes).toBe(writes);
  });

  it('a signed request whose key sits on a private address is refused when nothing is allowed: no request reaches it', async () => {
    const closed = await startBlog({ allow: new OutboundAllowList([]) });
    try {
      const before = alice.deliveries.length;
      let actorFetches = 0;
      const { createServer } = await import('node:http');
      const spy = createServer((_req, res) => {
        actorFetches++;
        res.end();
      });
      await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
      const port = (spy.address() as { port: number }).port;
      const res = await fetch(
        await alice.signedPost(`${closed.origin}/ap/inbox`, follow('private'), {
          keyId: new URL(`http://127.0.0.1:${port}/users/alice#main-key`),
        }),
      );
      expect(res.status).toBe(401);
      // A document lookup straight through the federation's loader is refused too.
      await expect(
        closed.blog.context().lookupObject(`http://127.0.0.1:${port}/users/alice`),
      ).resolves.toBeNull();
      expect(actorFetches).toBe(0);
      expect(closed.ports.writes).toBe(0);
      expect(alice.deliveries.length).toBe(before);
      spy.close();
    } finally {
      await closed.close();
    }
  });
});
