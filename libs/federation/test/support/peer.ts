// A remote fediverse server on loopback for attacker tests: routes set per test, every request
// it was asked counted, and accounts with their own RSA and Ed25519 keys.
import '../../src/temporal.js';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import { CryptographicKey, Endpoints, Multikey, Person } from '@fedify/vocab';
import { exportMultibaseKey, exportSpki } from '@fedify/vocab-runtime';

export interface PeerAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface PeerAccount {
  actorId: string;
  keyId: string;
  multikeyId: string;
  rsa: CryptoKeyPair;
  ed25519: CryptoKeyPair;
  publicKeyPem: string;
  multibase: string;
  /** The actor document as its own server serves it (listing both keys). */
  actor(): Record<string, unknown>;
}

export interface Peer {
  origin: string;
  /** `METHOD /path` of every request this server was asked, in order. */
  asked: string[];
  /** Serves `answer` (a JSON body, or a function of the request) at `path`. */
  serve(
    path: string,
    answer: PeerAnswer | ((req: express.Request) => PeerAnswer | Promise<PeerAnswer>),
  ): void;
  /** An account at `/users/{name}` whose actor document is served. */
  account(name: string): Promise<PeerAccount>;
  /** A POST of `activity` to `url`, signed (draft-cavage, Digest) with `key` as `keyId`. */
  signedPost(url: string, activity: unknown, key: CryptoKey, keyId: string): Promise<Request>;
  close(): Promise<void>;
}

export async function startPeer(): Promise<Peer> {
  const routes = new Map<string, (req: express.Request) => PeerAnswer | Promise<PeerAnswer>>();
  const asked: string[] = [];
  const app = express();
  app.use(express.raw({ type: () => true, limit: '1mb' }));
  app.use((req, res) => {
    asked.push(`${req.method} ${req.path}`);
    const route = routes.get(req.path);
    if (!route) return void res.status(404).end();
    void Promise.resolve(route(req)).then(({ status = 200, headers = {}, body }) => {
      res.status(status).set({ 'content-type': 'application/activity+json', ...headers });
      if (body === undefined) res.end();
      else res.send(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    asked,
    serve(path, answer) {
      routes.set(path, typeof answer === 'function' ? answer : () => answer);
    },
    async account(name) {
      const rsa = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
      const ed25519 = await generateCryptoKeyPair('Ed25519');
      const publicKeyPem = await exportSpki(rsa.publicKey);
      const multibase = await exportMultibaseKey(ed25519.publicKey);
      const actorId = `${origin}/users/${name}`;
      // Written by Fedify, so that its JSON-LD terms are what Fedify itself reads back.
      const document = (await new Person({
        id: new URL(actorId),
        preferredUsername: name,
        name,
        url: new URL(`${origin}/@${name}`),
        inbox: new URL(`${actorId}/inbox`),
        endpoints: new Endpoints({ sharedInbox: new URL(`${origin}/inbox`) }),
        publicKey: new CryptographicKey({
          id: new URL(`${actorId}#main-key`),
          owner: new URL(actorId),
          publicKey: rsa.publicKey,
        }),
        assertionMethods: [
          new Multikey({
            id: new URL(`${actorId}#ed25519-key`),
            controller: new URL(actorId),
            publicKey: ed25519.publicKey,
          }),
        ],
      }).toJsonLd({ format: 'compact' })) as Record<string, unknown>;
      const account: PeerAccount = {
        actorId,
        keyId: `${actorId}#main-key`,
        multikeyId: `${actorId}#ed25519-key`,
        rsa,
        ed25519,
        publicKeyPem,
        multibase,
        actor: () => structuredClone(document),
      };
      routes.set(`/users/${name}`, () => ({ body: account.actor() }));
      routes.set(`/users/${name}/inbox`, () => ({ status: 202 }));
      return account;
    },
    async signedPost(url, activity, key, keyId) {
      const request = new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/activity+json' },
        body: JSON.stringify(activity),
      });
      return signRequest(request, key, new URL(keyId), { spec: 'draft-cavage-http-signatures-12' });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** WebFinger for the peer's accounts `names` (`acct:{name}@{host}` → its actor), 404 for anyone else. */
export function serveWebFinger(peer: Peer, names: string[]): void {
  const host = new URL(peer.origin).host;
  peer.serve('/.well-known/webfinger', (req) => {
    const user = /^acct:([^@]+)@/.exec(String(req.query.resource))?.[1];
    if (!user || !names.includes(user)) return { status: 404 };
    return {
      headers: { 'content-type': 'application/jrd+json' },
      body: {
        subject: `acct:${user}@${host}`,
        links: [{ rel: 'self', type: 'application/activity+json', href: `${peer.origin}/users/${user}` }],
      },
    };
  });
}
