/**
 * The inbox as an attacker on the open internet would try it: loopback servers stand in for a
 * victim's server and an attacker's, each with its own keys, and count what they were asked.
 * A key proves an actor only when it is on the actor's own server and the actor's own document
 * lists it; an unsigned body is refused before any JSON-LD work or fetch; an activity speaks
 * for its actor's server only.
 */
import '../src/temporal.js';
import { MemoryKvStore } from '@fedify/fedify';
import { encodeMultibase } from '@fedify/vocab-runtime';
import { blogLoaders, MAX_DOCUMENT_REDIRECTS, RECENT_DOCUMENT_MAX_CHARS } from '../src/index.js';
import { article, LOOPBACK, startBlog, type BlogInstance } from './support/rig.js';
import { startPeer, type Peer, type PeerAccount } from './support/peer.js';

const AS = 'https://www.w3.org/ns/activitystreams';

/** RFC 8785 canonical JSON (what eddsa-jcs-2022 signs), for making proofs as FEP-8b32 describes. */
const canonical = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
    .join(',')}}`;
};

/**
 * `document` with an eddsa-jcs-2022 DataIntegrityProof by `key` as `methodId`, the
 * data-integrity context added (it defines `proof`).
 */
async function withProof<T extends { '@context': unknown }>(unsigned: T, key: CryptoKey, methodId: string) {
  const document = { ...unsigned, '@context': [AS, 'https://w3id.org/security/data-integrity/v1'] };
  const config = {
    '@context': document['@context'],
    type: 'DataIntegrityProof',
    cryptosuite: 'eddsa-jcs-2022',
    verificationMethod: methodId,
    proofPurpose: 'assertionMethod',
    // As Temporal writes it: Fedify's verifier rebuilds the proof's options with Instant.toString()
    // (a time ending in a zero millisecond digit would be written shorter than toISOString's).
    created: Temporal.Now.instant().toString(),
  };
  const hash = async (v: unknown) =>
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical(v))));
  const digest = new Uint8Array([...(await hash(config)), ...(await hash(document))]);
  const signature = new Uint8Array(await crypto.subtle.sign('Ed25519', key, digest));
  const { '@context': _context, ...proof } = config;
  return {
    ...document,
    proof: { ...proof, proofValue: new TextDecoder().decode(encodeMultibase('base58btc', signature)) },
  };
}

describe('the inbox cannot be fooled', () => {
  let blog: BlogInstance;
  let victim: Peer;
  let attacker: Peer;
  let alice: PeerAccount;
  let eve: PeerAccount;
  let inbox: string;
  let articleId: string;

  beforeAll(async () => {
    blog = await startBlog();
    victim = await startPeer();
    attacker = await startPeer();
    alice = await victim.account('alice');
    eve = await attacker.account('eve');
    inbox = `${blog.origin}/ap/inbox`;
    blog.ports.posts.set(7, article(blog.origin, 7, 'Tomatoes'));
    articleId = `${blog.origin}/post/7`;
  });
  afterAll(async () => {
    await blog?.close();
    await victim?.close();
    await attacker?.close();
  });

  /** A reply by `author` (its Note on `noteOrigin`), in a Create sent from `activityOrigin`. */
  const reply = (
    author: string,
    n: number,
    text: string,
    origins: { note?: string; activity?: string } = {},
  ) => {
    const noteId = `${origins.note ?? new URL(author).origin}/notes/${n}`;
    return {
      '@context': AS,
      id: `${origins.activity ?? new URL(author).origin}/activities/${n}`,
      type: 'Create',
      actor: author,
      object: {
        id: noteId,
        type: 'Note',
        attributedTo: author,
        inReplyTo: articleId,
        content: `<p>${text}</p>`,
        published: '2026-11-25T10:00:00Z',
        to: [`${AS}#Public`],
      },
    };
  };
  const send = async (request: Request) => {
    const response = await fetch(request);
    return { status: response.status, body: await response.text() };
  };
  const nothingStored = (writesBefore: number) => {
    expect(blog.ports.writes).toBe(writesBefore);
  };

  it('takes an honest reply, signed by the key its actor lists (the control case)', async () => {
    const answer = await send(
      await victim.signedPost(
        inbox,
        reply(alice.actorId, 1, 'Lovely tomatoes'),
        alice.rsa.privateKey,
        alice.keyId,
      ),
    );
    expect(answer.status).toBe(202);
    expect(blog.ports.created.map((c) => [c.objectUri, c.actor.uri])).toEqual([
      [`${victim.origin}/notes/1`, alice.actorId],
    ]);
  });

  it("refuses a bare key on the attacker's server that claims the victim as its owner, without asking the victim", async () => {
    const keyId = `${attacker.origin}/keys/forged`;
    attacker.serve('/keys/forged', {
      body: {
        '@context': 'https://w3id.org/security/v1',
        id: keyId,
        type: 'CryptographicKey',
        owner: alice.actorId,
        publicKeyPem: eve.publicKeyPem,
      },
    });
    const writes = blog.ports.writes;
    const askedVictim = victim.asked.length;
    const askedAttacker = attacker.asked.length;
    const answer = await send(
      await attacker.signedPost(inbox, reply(alice.actorId, 2, 'Phishing'), eve.rsa.privateKey, keyId),
    );
    expect(answer.status).toBe(401);
    nothingStored(writes);
    // Refused on the key's address alone: neither server was asked anything.
    expect(victim.asked.length).toBe(askedVictim);
    expect(attacker.asked.length).toBe(askedAttacker);
  });

  it("refuses the attacker's own actor whose publicKey names the victim as its owner", async () => {
    const forger = await attacker.account('forger');
    attacker.serve('/users/forger', {
      body: {
        ...forger.actor(),
        publicKey: { id: forger.keyId, owner: alice.actorId, publicKeyPem: forger.publicKeyPem },
      },
    });
    const writes = blog.ports.writes;
    const answer = await send(
      await attacker.signedPost(
        inbox,
        reply(alice.actorId, 3, 'Phishing'),
        forger.rsa.privateKey,
        forger.keyId,
      ),
    );
    expect(answer.status).toBe(401);
    nothingStored(writes);
  });

  it('refuses an object integrity proof (no HTTP signature) whose Multikey on the attacker names the victim as controller', async () => {
    const methodId = `${attacker.origin}/keys/multikey`;
    attacker.serve('/keys/multikey', {
      body: {
        '@context': 'https://w3id.org/security/multikey/v1',
        id: methodId,
        type: 'Multikey',
        controller: alice.actorId,
        publicKeyMultibase: eve.multibase,
      },
    });
    const signed = await withProof(reply(alice.actorId, 4, 'Phishing'), eve.ed25519.privateKey, methodId);
    const writes = blog.ports.writes;
    const answer = await send(
      new Request(inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(signed),
      }),
    );
    expect(answer.status).toBe(401);
    nothingStored(writes);
  });

  it("refuses a key on the victim's own server that the victim's actor does not list (another account there)", async () => {
    const mallory = await victim.account('mallory');
    victim.serve('/users/mallory', {
      body: {
        ...mallory.actor(),
        publicKey: { id: mallory.keyId, owner: alice.actorId, publicKeyPem: mallory.publicKeyPem },
      },
    });
    const writes = blog.ports.writes;
    const answer = await send(
      await victim.signedPost(
        inbox,
        reply(alice.actorId, 5, 'Phishing'),
        mallory.rsa.privateKey,
        mallory.keyId,
      ),
    );
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ error: 'refused: not-listed' });
    nothingStored(writes);
    // The victim was asked for its actor, which does not list that key.
    expect(victim.asked).toContain('GET /users/alice');
  });

  it("refuses forged Update and Delete of the victim's comment by a key on the attacker's server", async () => {
    const keyId = `${attacker.origin}/keys/forged`;
    const note = reply(alice.actorId, 1, 'Click https://phish.example').object;
    const update = {
      '@context': AS,
      id: `${victim.origin}/activities/u1`,
      type: 'Update',
      actor: alice.actorId,
      object: note,
    };
    const del = {
      '@context': AS,
      id: `${victim.origin}/activities/d1`,
      type: 'Delete',
      actor: alice.actorId,
      object: note.id,
    };
    const writes = blog.ports.writes;
    expect((await send(await attacker.signedPost(inbox, update, eve.rsa.privateKey, keyId))).status).toBe(
      401,
    );
    expect((await send(await attacker.signedPost(inbox, del, eve.rsa.privateKey, keyId))).status).toBe(401);
    nothingStored(writes);
    expect(blog.ports.updated).toEqual([]);
    expect(blog.ports.deleted).toEqual([]);
  });

  it("takes an FEP-8b32 proof (eddsa-jcs-2022, no HTTP signature) by the key the actor's document lists under assertionMethod", async () => {
    const document = reply(alice.actorId, 6, 'Signed with a proof');
    const answer = await send(
      new Request(inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(await withProof(document, alice.ed25519.privateKey, alice.multikeyId)),
      }),
    );
    expect(answer).toEqual({ status: 202, body: '' });
    expect(blog.ports.created.map((c) => c.objectUri)).toContain(`${victim.origin}/notes/6`);
    // The same proof over a changed body is refused.
    const signed = await withProof(
      reply(alice.actorId, 9, 'Original'),
      alice.ed25519.privateKey,
      alice.multikeyId,
    );
    const tampered = { ...signed, object: { ...signed.object, content: '<p>Tampered</p>' } };
    const refused = await send(
      new Request(inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(tampered),
      }),
    );
    expect(refused.status).toBe(401);
  });

  it("refuses an honestly signed Create whose id is on another server, and does not take an embedded Note of another server's as sent", async () => {
    const writes = blog.ports.writes;
    // The activity's id on the victim's server: refused outright.
    const foreignId = reply(eve.actorId, 7, 'Mine now', { activity: victim.origin, note: victim.origin });
    expect(
      (await send(await attacker.signedPost(inbox, foreignId, eve.rsa.privateKey, eve.keyId))).status,
    ).toBe(401);
    nothingStored(writes);
    // The activity on the attacker's server, the Note's id on the victim's: fetched from the victim,
    // where it does not exist (404), so nothing is stored under that id.
    const squat = reply(eve.actorId, 8, 'Squatting', { note: victim.origin });
    expect((await send(await attacker.signedPost(inbox, squat, eve.rsa.privateKey, eve.keyId))).status).toBe(
      202,
    );
    expect(victim.asked).toContain('GET /notes/8');
    expect(blog.ports.created.map((c) => c.objectUri)).not.toContain(`${victim.origin}/notes/8`);
    // The real author's reply with that id is taken.
    const real = reply(alice.actorId, 8, 'The real reply');
    expect((await send(await victim.signedPost(inbox, real, alice.rsa.privateKey, alice.keyId))).status).toBe(
      202,
    );
    expect(blog.ports.created.find((c) => c.objectUri === `${victim.origin}/notes/8`)?.actor.uri).toBe(
      alice.actorId,
    );
  });
});

describe('remote links', () => {
  let blog: BlogInstance;
  let peer: Peer;
  beforeAll(async () => {
    blog = await startBlog();
    peer = await startPeer();
    blog.ports.posts.set(7, article(blog.origin, 7, 'Tomatoes'));
  });
  afterAll(async () => {
    await blog?.close();
    await peer?.close();
  });

  it.each([
    ['data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)'],
    ['javascript:alert(1)', 'file:///etc/passwd'],
    [' JaVaScRiPt:alert(1)', 'data:image/svg+xml;base64,PHN2Zz4='],
  ])(
    'keeps no link but http(s): a profile url of %s and an avatar of %s are stored as none',
    async (url, icon) => {
      const name = `m${Math.random().toString(36).slice(2, 8)}`;
      const mallory = await peer.account(name);
      peer.serve(`/users/${name}`, {
        body: {
          ...mallory.actor(),
          url,
          icon: { type: 'Image', url: icon },
          endpoints: { sharedInbox: 'data:,x' },
        },
      });
      const blogActor = `${blog.origin}/ap/actor/blog`;
      const follow = {
        '@context': AS,
        id: `${peer.origin}/follows/${name}`,
        type: 'Follow',
        actor: mallory.actorId,
        object: blogActor,
      };
      expect(
        (
          await fetch(
            await peer.signedPost(`${blogActor}/inbox`, follow, mallory.rsa.privateKey, mallory.keyId),
          )
        ).status,
      ).toBe(202);
      const stored = blog.ports.followerRows.get(mallory.actorId);
      expect(stored).toMatchObject({ url: null, iconUrl: null, sharedInbox: null });
      const note = {
        '@context': AS,
        id: `${peer.origin}/activities/${name}`,
        type: 'Create',
        actor: mallory.actorId,
        object: {
          id: `${peer.origin}/notes/${name}`,
          type: 'Note',
          attributedTo: mallory.actorId,
          inReplyTo: `${blog.origin}/post/7`,
          content: 'hi',
        },
      };
      expect(
        (
          await fetch(
            await peer.signedPost(`${blog.origin}/ap/inbox`, note, mallory.rsa.privateKey, mallory.keyId),
          )
        ).status,
      ).toBe(202);
      expect(blog.ports.created.at(-1)?.actor).toMatchObject({
        uri: mallory.actorId,
        url: null,
        iconUrl: null,
      });
    },
  );
});

describe('the inbox refuses cheaply first', () => {
  let blog: BlogInstance;
  let counting: Peer;
  let inbox: string;

  beforeAll(async () => {
    blog = await startBlog();
    counting = await startPeer();
    inbox = `${blog.origin}/ap/inbox`;
  });
  afterAll(async () => {
    await blog?.close();
    await counting?.close();
  });

  /** The probe's body: 2,500 tiny Hashtags (about 164 KB), a custom @context on the counting server. */
  const flood = () =>
    JSON.stringify({
      '@context': [AS, `${counting.origin}/context.jsonld`],
      id: `${counting.origin}/activities/flood`,
      type: 'Create',
      actor: `${counting.origin}/users/x`,
      object: {
        id: `${counting.origin}/notes/flood`,
        type: 'Note',
        attributedTo: `${counting.origin}/users/x`,
        content: 'x',
        // Two members each: 7,500 values, under the 10,000 the shape check allows.
        tag: Array.from({ length: 2500 }, (_, i) => ({
          type: 'Hashtag',
          name: `#tag-number-${i}-${'x'.repeat(24)}`,
        })),
      },
    });

  it('refuses unsigned many-object bodies, and ones whose signature header does not parse, with no fetch and little CPU each', async () => {
    const body = flood();
    expect(body.length).toBeGreaterThan(150_000);
    const headers = [
      {},
      { signature: `keyId="${counting.origin}/users/x#main-key"` }, // no signature= parameter
      { signature: `keyId=${counting.origin}/users/x#main-key,signature="AAAA"` }, // unquoted
      { signature: 'keyId="acct:x@example.org",signature="AAAA"' }, // not an http(s) URL
      { 'signature-input': `sig1=("@method");keyid="${counting.origin}/k"`, signature: 'sig2=:AAAA:' }, // labels differ
    ];
    const rounds = 4;
    const before = process.threadCpuUsage();
    for (let i = 0; i < rounds; i++)
      for (const h of headers) {
        const response = await fetch(inbox, {
          method: 'POST',
          headers: { 'content-type': 'application/activity+json', ...h },
          body,
        });
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ error: 'refused: unsigned' });
      }
    const cpu = process.threadCpuUsage(before);
    const msEach = (cpu.user + cpu.system) / 1000 / (rounds * headers.length);
    // Thread CPU (this process sends and answers): a few ms each against 500 ms before the gate.
    // 50 ms leaves 10x room on a busy machine.
    expect(msEach).toBeLessThan(50);
    expect(counting.asked).toEqual([]);
    expect(blog.ports.writes).toBe(0);
  });

  it('gates every spelling of an inbox path: an unsigned Create is refused, however the path is written', async () => {
    const writes = blog.ports.writes;
    for (const path of [
      '/ap/inbox',
      '/ap/inbox/',
      '/ap/actor/blog/inbox',
      '/ap/%61ctor/blog/inbox',
      '/ap/actor/blog/inbox/',
      '/ap//inbox',
    ]) {
      const response = await fetch(`${blog.origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify({
          '@context': AS,
          id: `${counting.origin}/users/x/activities/900`,
          type: 'Create',
          actor: `${counting.origin}/users/x`,
          object: {
            id: `${counting.origin}/users/x/notes/900`,
            type: 'Note',
            attributedTo: `${counting.origin}/users/x`,
            content: 'Forged',
          },
        }),
      });
      expect([path, response.status]).toEqual([path, 401]);
    }
    expect(blog.ports.writes).toBe(writes);
  });

  it('refuses a signature whose key is on another server than the actor, before fetching anything', async () => {
    const response = await fetch(inbox, {
      method: 'POST',
      headers: {
        'content-type': 'application/activity+json',
        date: new Date().toUTCString(),
        signature: `keyId="${counting.origin}/keys/1",algorithm="rsa-sha256",headers="(request-target) host date",signature="AAAA"`,
      },
      body: JSON.stringify({
        '@context': AS,
        id: 'https://elsewhere.example/a/1',
        type: 'Follow',
        actor: 'https://elsewhere.example/users/a',
        object: `${blog.origin}/ap/actor/blog`,
      }),
    });
    expect(response.status).toBe(401);
    expect(counting.asked).toEqual([]);
  });

  it('refuses bodies with no actor, an actor that is not http(s), or that are not JSON objects (400)', async () => {
    for (const body of [
      '[]',
      '"x"',
      '{"type":"Follow"}',
      '{"type":"Follow","actor":"javascript:alert(1)"}',
      '{"type":',
    ]) {
      const response = await fetch(inbox, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body,
      });
      expect(response.status).toBe(400);
    }
  });
});

describe('document fetches follow redirects through the outbound policy', () => {
  let peer: Peer;
  let blog: BlogInstance;
  beforeAll(async () => {
    peer = await startPeer();
    blog = await startBlog();
  });
  afterAll(async () => {
    await peer?.close();
    await blog?.close();
  });

  it('lets an actor whose document sits behind a 301 follow the blog', async () => {
    const bob = await peer.account('bob');
    peer.serve('/users/bob', { status: 301, headers: { location: '/users/bob/' } });
    peer.serve('/users/bob/', { body: bob.actor() });
    const blogActor = `${blog.origin}/ap/actor/blog`;
    const follow = {
      '@context': AS,
      id: `${peer.origin}/follows/1`,
      type: 'Follow',
      actor: bob.actorId,
      object: blogActor,
    };
    const response = await fetch(
      await peer.signedPost(`${blogActor}/inbox`, follow, bob.rsa.privateKey, bob.keyId),
    );
    expect(response.status).toBe(202);
    expect(blog.ports.followerRows.get(bob.actorId)?.status).toBe('accepted');
    expect(peer.asked).toEqual(expect.arrayContaining(['GET /users/bob', 'GET /users/bob/']));
  });

  it("gives up on an object that never answers within the inbox's deadline, storing nothing (the sender or the queue tries again)", async () => {
    const carol = await peer.account('carol');
    peer.serve('/notes/never', () => new Promise(() => undefined));
    const create = {
      '@context': AS,
      id: `${peer.origin}/activities/never`,
      type: 'Create',
      actor: carol.actorId,
      object: `${peer.origin}/notes/never`,
    };
    const writes = blog.ports.writes;
    const response = await fetch(
      await peer.signedPost(`${blog.origin}/ap/inbox`, create, carol.rsa.privateKey, carol.keyId),
    );
    // Without a queue (this rig) the handler's timeout is the answer's 500; with one, a retry later.
    expect(response.status).toBe(500);
    expect(blog.ports.writes).toBe(writes);
    expect(peer.asked.filter((a) => a === 'GET /notes/never')).toHaveLength(1);
  });

  it(`follows up to ${MAX_DOCUMENT_REDIRECTS} redirects, each hop checked, and no more`, async () => {
    const loaders = blogLoaders(LOOPBACK, new MemoryKvStore());
    const doc = { '@context': AS, id: `${peer.origin}/moved/3`, type: 'Note', content: 'here' };
    peer.serve('/moved/3', { body: doc });
    for (let i = 0; i < 3; i++)
      peer.serve(`/moved/${i}`, { status: 301, headers: { location: `/moved/${i + 1}` } });
    const loaded = await loaders.freshDocuments(`${peer.origin}/moved/0`);
    expect(loaded.document).toEqual(doc);
    expect(loaded.documentUrl).toBe(`${peer.origin}/moved/3`);
    peer.serve('/too-far', { status: 302, headers: { location: '/moved/0' } });
    await expect(loaders.freshDocuments(`${peer.origin}/too-far`)).rejects.toThrow(/redirects/);
    // A hop to a private address is refused by the policy, never fetched.
    peer.serve('/to-private', { status: 301, headers: { location: 'http://10.20.30.40/doc' } });
    await expect(loaders.freshDocuments(`${peer.origin}/to-private`)).rejects.toThrow();
  });

  it("fetches a key id's actor once for the key and the actor, shares a fetch under way, and hands each caller a copy", async () => {
    const loaders = blogLoaders(LOOPBACK, new MemoryKvStore());
    const doc = { '@context': AS, id: `${peer.origin}/people/dana`, type: 'Person', name: 'Dana' };
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    peer.serve('/people/dana', async () => {
      await held;
      return { body: doc };
    });
    const fetches = () => peer.asked.filter((a) => a === 'GET /people/dana').length;
    // The gate's key and its actor at once: one fetch.
    const loads = [
      loaders.documents(`${peer.origin}/people/dana#main-key`),
      loaders.documents(`${peer.origin}/people/dana`),
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const [key, actor] = await Promise.all(loads);
    expect(fetches()).toBe(1);
    // The queued activity's actor, soon after (the inbox handler's loader): from memory.
    const quick = await loaders.quickDocuments(`${peer.origin}/people/dana`);
    expect(fetches()).toBe(1);
    for (const loaded of [key, actor, quick]) {
      expect(loaded.document).toEqual(doc);
      expect(loaded.documentUrl).toBe(`${peer.origin}/people/dana`);
    }
    // Later loads come from memory: no fetch, and no caller's change reaches another.
    (actor.document as { name: string }).name = 'changed';
    const again = await loaders.documents(`${peer.origin}/people/dana#other-key`);
    expect((again.document as { name: string }).name).toBe('Dana');
    expect(fetches()).toBe(1);
    // The uncached loader still asks the server.
    await loaders.freshDocuments(`${peer.origin}/people/dana`);
    expect(fetches()).toBe(2);
  });

  it('keeps no large document in memory: each load of one comes from the database cache', async () => {
    const kv = new MemoryKvStore();
    const loaders = blogLoaders(LOOPBACK, kv);
    const big = {
      '@context': AS,
      id: `${peer.origin}/people/big`,
      type: 'Person',
      summary: 'x'.repeat(RECENT_DOCUMENT_MAX_CHARS),
    };
    peer.serve('/people/big', { body: big });
    let reads = 0;
    const get = kv.get.bind(kv);
    kv.get = (key) => (reads++, get(key));
    expect((await loaders.documents(`${peer.origin}/people/big`)).document).toEqual(big);
    expect((await loaders.documents(`${peer.origin}/people/big#main-key`)).document).toEqual(big);
    expect(peer.asked.filter((a) => a === 'GET /people/big')).toHaveLength(1);
    expect(reads).toBe(2); // each load asked the database cache: nothing came from memory
  });
});
