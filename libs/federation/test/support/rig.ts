// Test rig: the federation ports in memory, a blog on a loopback HTTP server (express, the middleware,
// a fallback route standing in for the blog's own pages), and a remote account in Mastodon's shape.
import '../../src/temporal.js';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { exportJwk, generateCryptoKeyPair, MemoryKvStore, signRequest, verifyRequest } from '@fedify/fedify';
import { exportSpki } from '@fedify/vocab-runtime';
import { OutboundAllowList } from '@blog/server-kit';
import {
  createBlogFederation,
  loaderFactories,
  type ActorKeys,
  type ArticleData,
  type BlogFederation,
  type BlogFederationOptions,
  type FederationPorts,
  type QuoteStamp,
  type OwnerNotification,
  type Reaction,
  type RemoteComment,
  type RemoteFollower,
  type SiteData,
} from '../../src/index.js';
import { federationMiddleware } from './middleware.js';

export const LOOPBACK = new OutboundAllowList(['127.0.0.1']);

export async function makeActorKeys(): Promise<ActorKeys> {
  const rsa = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const ed = await generateCryptoKeyPair('Ed25519');
  return {
    rsa: { publicJwk: await exportJwk(rsa.publicKey), privateJwk: await exportJwk(rsa.privateKey) },
    ed25519: { publicJwk: await exportJwk(ed.publicKey), privateJwk: await exportJwk(ed.privateKey) },
  };
}

type StoredFollower = RemoteFollower & { followActivityId: string; status: 'accepted' | 'pending' };

/** The blog's side, in memory: what the tables would hold. */
export class MemoryPorts implements FederationPorts {
  site_: Omit<SiteData, 'origin' | 'postCount'> = {
    handle: 'journal',
    title: 'A test journal',
    summaryHtml: '<p>Notes from the garden.</p>',
    iconUrl: '/media/avatar.png',
    imageUrl: null,
    approveFollowers: false,
  };
  origin = '';
  followerRows = new Map<string, StoredFollower>();
  followingRows: string[] = [];
  accepted: { followActivityId: string; actorUri: string }[] = [];
  blockedActors = new Set<string>();
  reactions: Reaction[] = [];
  posts = new Map<number, ArticleData | 'gone'>();
  created: RemoteComment[] = [];
  updated: RemoteComment[] = [];
  deleted: { objectUri: string; actorUri: string }[] = [];
  /** Every port call that writes, for "nothing stored" checks. */
  writes = 0;

  constructor(private readonly keys: ActorKeys) {}

  async site(): Promise<SiteData> {
    const visible = [...this.posts.values()].filter((p) => p !== 'gone').length;
    return { ...this.site_, origin: this.origin, postCount: visible };
  }
  async actorKeys() {
    return this.keys;
  }
  followers = {
    // The cursor is a position here: opaque to the federation, as the social service's ids are.
    page: async (cursor: string, limit: number) => {
      const all = [...this.followerRows.values()].filter((f) => f.status === 'accepted');
      const from = Number(cursor);
      return {
        items: all.slice(from, from + limit),
        nextCursor: from + limit < all.length ? String(from + limit) : null,
      };
    },
    count: async () => [...this.followerRows.values()].filter((f) => f.status === 'accepted').length,
    add: async (f: RemoteFollower & { followActivityId: string }) => {
      this.writes++;
      const status = this.site_.approveFollowers ? 'pending' : 'accepted';
      this.followerRows.set(f.actorUri, { ...f, status });
      return status;
    },
    remove: async (actorUri: string) => {
      this.writes++;
      this.followerRows.delete(actorUri);
    },
    isFollower: async (actorUri: string) => this.followerRows.get(actorUri)?.status === 'accepted',
    move: async (oldActorUri: string, account: RemoteFollower) => {
      const row = this.followerRows.get(oldActorUri);
      if (!row) return false;
      this.writes++;
      this.followerRows.delete(oldActorUri);
      this.followerRows.set(account.actorUri, { ...row, ...account });
      return true;
    },
  };
  quoteStamps = new Map<string, QuoteStamp>();
  quotes = {
    add: async (stamp: QuoteStamp) => {
      this.writes++;
      this.quoteStamps.set(stamp.id, stamp);
    },
    stamp: async (id: string) => this.quoteStamps.get(id) ?? null,
  };
  async following() {
    return this.followingRows;
  }
  async followAccepted(followActivityId: string, actorUri: string) {
    this.writes++;
    this.accepted.push({ followActivityId, actorUri });
  }
  async blocked(actorUri: string) {
    return this.blockedActors.has(actorUri) || this.blockedActors.has(new URL(actorUri).host);
  }
  async reaction(r: Reaction) {
    this.writes++;
    if (!this.reactions.some((x) => x.activityId === r.activityId)) this.reactions.push(r);
  }
  /** What the owner was told (follows, replies, likes, boosts, quotes). */
  notifications: OwnerNotification[] = [];
  async notify(n: OwnerNotification) {
    this.notifications.push(n);
  }
  async undoReaction(activityId: string, actorUri: string) {
    this.writes++;
    this.reactions = this.reactions.filter((r) => !(r.activityId === activityId && r.actorUri === actorUri));
  }
  articles = {
    byPostId: async (id: number) => this.posts.get(id) ?? null,
    outbox: async (offset: number, limit: number) => {
      const all = [...this.posts.values()]
        .filter((p): p is ArticleData => p !== 'gone')
        .sort((a, b) => +b.published - +a.published);
      return {
        items: all.slice(offset, offset + limit).map((a) => ({ id: a.id, published: a.published })),
        total: all.length,
      };
    },
  };
  comments = {
    create: async (c: RemoteComment) => {
      this.writes++;
      this.created.push(c);
    },
    update: async (c: RemoteComment) => {
      this.writes++;
      this.updated.push(c);
    },
    delete: async (objectUri: string, actorUri: string) => {
      this.writes++;
      this.deleted.push({ objectUri, actorUri });
    },
  };
}

export function article(origin: string, id: number, title = `Post ${id}`): ArticleData {
  return {
    id,
    title,
    html: `<p>Body of <a href="${origin}/tags/garden">${title}</a></p>`,
    excerpt: `About ${title}`,
    url: `${origin}/garden/post-${id}`,
    published: new Date(Date.UTC(2026, 10, id)),
    updated: null,
    tags: ['garden'],
    images: [{ url: `${origin}/media/${id}.jpg`, mediaType: 'image/jpeg', alt: 'A photo' }],
  };
}

async function listen(app: express.Express): Promise<{ server: Server; origin: string }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface BlogInstance {
  origin: string;
  ports: MemoryPorts;
  blog: BlogFederation;
  /** Every request the server saw after the middleware let it through (the blog's own routes). */
  passedThrough: string[];
  /** Bodies POSTed to this blog's inboxes. */
  inboxBodies: { path: string; body: unknown }[];
  close(): Promise<void>;
}

/** A blog on 127.0.0.1: the middleware first, then a stand-in for the blog's own routes. */
export async function startBlog(
  options: Partial<
    Pick<BlogFederationOptions, 'allow' | 'queue' | 'retryHours' | 'onDeliveryGivenUp' | 'inboxTurns'>
  > & {
    maxInboxBytes?: number;
  } = {},
): Promise<BlogInstance> {
  const app = express();
  const passedThrough: string[] = [];
  const inboxBodies: { path: string; body: unknown }[] = [];
  let handler: express.RequestHandler = (_req, _res, next) => next();
  app.use((req, res, next) => handler(req, res, next));
  app.use((req, res) => {
    passedThrough.push(`${req.method} ${req.originalUrl}`);
    res.status(200).type('html').send('<!doctype html><title>page</title>');
  });
  const { server, origin } = await listen(app);
  const ports = new MemoryPorts(await makeActorKeys());
  ports.origin = origin;
  const blog = createBlogFederation({
    ports,
    origin,
    kv: new MemoryKvStore(),
    queue: options.queue,
    // The test starts the workers itself, so that close() can stop them.
    manuallyStartQueue: true,
    retryHours: options.retryHours,
    onDeliveryGivenUp: options.onDeliveryGivenUp,
    allow: options.allow ?? LOOPBACK,
    inboxTurns: options.inboxTurns,
  });
  const workers = new AbortController();
  const working = options.queue
    ? blog.federation.startQueue(undefined, { signal: workers.signal })
    : Promise.resolve();
  const middleware = federationMiddleware(blog, { maxInboxBytes: options.maxInboxBytes });
  handler = (req, res, next) => {
    if (req.method === 'POST' && /inbox/.test(req.path)) {
      // A copy of the body for the test to read; the middleware gets the same bytes.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          inboxBodies.push({ path: req.path, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch {
          inboxBodies.push({ path: req.path, body: null });
        }
      });
    }
    middleware(req, res, next);
  };
  return {
    origin,
    ports,
    blog,
    passedThrough,
    inboxBodies,
    close: async () => {
      workers.abort();
      await working.catch(() => undefined);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const MASTODON_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    toot: 'http://joinmastodon.org/ns#',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    featuredTags: { '@id': 'toot:featuredTags', '@type': '@id' },
    alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
    movedTo: { '@id': 'as:movedTo', '@type': '@id' },
    schema: 'http://schema.org#',
    PropertyValue: 'schema:PropertyValue',
    value: 'schema:value',
    discoverable: 'toot:discoverable',
    suspended: 'toot:suspended',
    memorial: 'toot:memorial',
    indexable: 'toot:indexable',
    focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
  },
];

export interface Delivery {
  path: string;
  body: { type?: string; id?: string; actor?: string; object?: unknown };
  verified: boolean;
}

/** An account on a Mastodon-shaped server: its actor as Mastodon serves one, an inbox that checks signatures. */
export interface MastodonFixture {
  origin: string;
  actorId: string;
  keyId: URL;
  privateKey: CryptoKey;
  deliveries: Delivery[];
  /** Signs like Mastodon (draft-cavage-12, Digest) unless told otherwise. */
  signedPost(
    url: string,
    activity: object,
    options?: { hoursAgo?: number; key?: CryptoKey; keyId?: URL },
  ): Promise<Request>;
  close(): Promise<void>;
}

export async function startMastodon(): Promise<MastodonFixture> {
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const pem = await exportSpki(keys.publicKey);
  const deliveries: Delivery[] = [];
  const loaders = loaderFactories(LOOPBACK, new MemoryKvStore());
  const documentLoader = loaders.documentLoaderFactory({});
  const contextLoader = loaders.contextLoaderFactory({});
  const app = express();
  let origin = '';
  const actor = () => ({
    '@context': MASTODON_CONTEXT,
    id: `${origin}/users/alice`,
    type: 'Person',
    following: `${origin}/users/alice/following`,
    followers: `${origin}/users/alice/followers`,
    inbox: `${origin}/users/alice/inbox`,
    outbox: `${origin}/users/alice/outbox`,
    featured: `${origin}/users/alice/collections/featured`,
    featuredTags: `${origin}/users/alice/collections/tags`,
    preferredUsername: 'alice',
    name: 'Alice',
    summary: '<p>Gardener.</p>',
    url: `${origin}/@alice`,
    manuallyApprovesFollowers: false,
    discoverable: true,
    indexable: true,
    memorial: false,
    published: '2024-01-01T00:00:00Z',
    publicKey: { id: `${origin}/users/alice#main-key`, owner: `${origin}/users/alice`, publicKeyPem: pem },
    tag: [],
    attachment: [],
    endpoints: { sharedInbox: `${origin}/inbox` },
    icon: { type: 'Image', mediaType: 'image/png', url: `${origin}/avatars/alice.png` },
  });
  app.get('/users/alice', (_req, res) => {
    res.type('application/activity+json; charset=utf-8').send(JSON.stringify(actor()));
  });
  app.post(['/users/alice/inbox', '/inbox'], express.raw({ type: () => true, limit: '1mb' }), (req, res) => {
    void (async () => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
      const request = new Request(new URL(req.originalUrl, origin), {
        method: 'POST',
        headers,
        body: new Uint8Array(req.body as Buffer),
      });
      const key = await verifyRequest(request, { documentLoader, contextLoader }).catch(() => null);
      deliveries.push({
        path: req.path,
        body: JSON.parse((req.body as Buffer).toString('utf8')),
        verified: key !== null,
      });
      res.status(202).end();
    })();
  });
  const { server, origin: o } = await listen(app);
  origin = o;
  const actorId = `${origin}/users/alice`;
  const keyId = new URL(`${actorId}#main-key`);
  return {
    origin,
    actorId,
    keyId,
    privateKey: keys.privateKey,
    deliveries,
    async signedPost(url, activity, options = {}) {
      const request = new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(activity),
      });
      return signRequest(request, options.key ?? keys.privateKey, options.keyId ?? keyId, {
        spec: 'draft-cavage-http-signatures-12',
        currentTime: Temporal.Now.instant().subtract({ hours: options.hoursAgo ?? 0 }),
      });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export const waitUntil = async (check: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
