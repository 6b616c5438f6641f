import { Injectable } from '@nestjs/common';
import { ACTOR_KEY_KINDS, type ActorKeyKind, type ActorKeyPairs, type Jwk } from '@blog/contracts';
import { webcrypto } from 'node:crypto';
import { ActorKeysRepository, type ActorKeyPair } from './actor-keys.repository.js';

/** RSA for Mastodon's HTTP signatures, Ed25519 for object proofs (FEP-521a). */
const ALGORITHMS: Record<ActorKeyKind, webcrypto.RsaHashedKeyGenParams | webcrypto.Algorithm> = {
  rsa: {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  },
  ed25519: { name: 'Ed25519' },
};

async function generate(kind: ActorKeyKind): Promise<ActorKeyPair> {
  const pair = (await webcrypto.subtle.generateKey(ALGORITHMS[kind], true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const [publicJwk, privateJwk] = await Promise.all([
    webcrypto.subtle.exportKey('jwk', pair.publicKey),
    webcrypto.subtle.exportKey('jwk', pair.privateKey),
  ]);
  return { kind, publicJwk: publicJwk as Jwk, privateJwk: privateJwk as Jwk };
}

/**
 * The blog actor's key pairs, made on first use and then never changed (other servers cache
 * the public keys). Calls in this process share one load; replicas racing on the first start
 * each insert-if-absent and then all read back the pair that won.
 */
@Injectable()
export class ActorKeysService {
  private loading: Promise<ActorKeyPairs> | null = null;

  constructor(private readonly keys: ActorKeysRepository) {}

  pairs(): Promise<ActorKeyPairs> {
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = null; // a failed load (database away) is tried again on the next call
      throw error;
    });
    return this.loading;
  }

  private async load(): Promise<ActorKeyPairs> {
    let stored = await this.keys.all();
    const missing = ACTOR_KEY_KINDS.filter((kind) => !stored.some((pair) => pair.kind === kind));
    if (missing.length > 0) {
      for (const pair of await Promise.all(missing.map(generate))) await this.keys.addIfAbsent(pair);
      stored = await this.keys.all();
    }
    const byKind = (kind: ActorKeyKind) => {
      const pair = stored.find((candidate) => candidate.kind === kind)!;
      return { publicJwk: pair.publicJwk, privateJwk: pair.privateJwk };
    };
    return { rsa: byKind('rsa'), ed25519: byKind('ed25519') };
  }
}
