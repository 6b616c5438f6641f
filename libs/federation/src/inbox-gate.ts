// The inbox's door: who sent a POST, proved before any JSON-LD work. Fedify checks signatures only
// after it has expanded the whole activity, and takes a key as the actor's when the key document
// itself says so (its `owner` or `controller`): a key on an attacker's server that names another
// account as its owner would post in that account's name. Here, in order and cheapest first:
// the body's shape, a signature header that parses (or an object integrity proof in the body),
// the key on the actor's own origin, the signature itself, and the actor's own document listing
// the key. Only then is the activity queued for the inbox's listeners (or, when it names a JSON-LD
// context to fetch, handed to Fedify's inbox handler first).
import { verifyProof, verifyRequestDetailed, type KeyCache } from '@fedify/fedify';
import { DataIntegrityProof, type CryptographicKey, type Multikey } from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';
import {
  carriesProof,
  FEDERATION_MAX_JSON_DEPTH,
  FEDERATION_MAX_JSON_VALUES,
  jsonShapeRefusal,
  signatureClaim,
} from '@blog/contracts';
import { ExpiringMap } from './expiring-map.js';

export type InboxRefusalReason =
  'shape' | 'json' | 'actor' | 'foreign-id' | 'unsigned' | 'foreign-key' | 'signature' | 'not-listed';

export type GateVerdict =
  | { ok: true; actorId: string; signer: string; activity: Record<string, unknown> }
  | { ok: false; status: 400 | 401; reason: InboxRefusalReason };

const PROOF_CONTEXT = 'https://w3id.org/security/data-integrity/v1';

/** An inbox POST whose cheap checks passed: its body, its actor, and the key its signature names (null: a proof). */
export interface ReadPost {
  json: Record<string, unknown>;
  actor: URL;
  keyId: string | null;
}

const refuse = (status: 400 | 401, reason: InboxRefusalReason): Extract<GateVerdict, { ok: false }> => ({
  ok: false,
  status,
  reason,
});

/** How long a key, or an actor's listing of it, is trusted without asking again. */
const TRUST_MS = 10 * 60_000;
/** How long "the actor does not list this key" holds (a key just added shows up soon). */
const DISTRUST_MS = 60_000;
/** Entries kept in memory at most (each a few hundred bytes); the oldest go first. */
const MAX_ENTRIES = 5_000;

const httpUrl = (value: unknown): URL | null => {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
};

/** The ids a property lists: a string, an object with an id, or an array of either. */
function idsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.flatMap((v) =>
    typeof v === 'string'
      ? [v]
      : typeof v === 'object' && v !== null && typeof v.id === 'string'
        ? [v.id]
        : [],
  );
}

export interface InboxGateOptions {
  /** Remote documents (keys, actors), cached. */
  documentLoader: DocumentLoader;
  /** The same, never from the cache: asked again once when a cached actor does not list a key. */
  freshDocumentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
  now?: () => number;
}

export class InboxGate {
  private readonly keys: ExpiringMap<CryptographicKey | Multikey | null>;
  private readonly listings: ExpiringMap<boolean>;
  private readonly keyCache: KeyCache;

  constructor(private readonly options: InboxGateOptions) {
    const now = options.now ?? Date.now;
    this.keys = new ExpiringMap(MAX_ENTRIES, now);
    this.listings = new ExpiringMap(MAX_ENTRIES, now);
    this.keyCache = {
      get: async (keyId) => this.keys.get(keyId.href),
      set: async (keyId, key) => this.keys.set(keyId.href, key, key ? TRUST_MS : DISTRUST_MS),
    };
  }

  /** Who sent this inbox POST (whose body is `body`), or why it is refused. */
  async admit(request: Request, body: Uint8Array): Promise<GateVerdict> {
    const post = this.read(request, body);
    return 'json' in post ? this.verify(request, post) : post;
  }

  /**
   * The checks that cost no fetch and no key: the body's shape and JSON, its actor and id, and
   * the signature header's key on the actor's own origin. A refusal, or what `verify` goes on with.
   */
  read(request: Request, body: Uint8Array): Extract<GateVerdict, { ok: false }> | ReadPost {
    if (jsonShapeRefusal(body, FEDERATION_MAX_JSON_DEPTH, FEDERATION_MAX_JSON_VALUES))
      return refuse(400, 'shape');
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return refuse(400, 'json');
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return refuse(400, 'json');
    const activity = json as { id?: unknown; actor?: unknown };
    const actor = httpUrl(
      typeof activity.actor === 'object' && activity.actor !== null
        ? (activity.actor as { id?: unknown }).id
        : activity.actor,
    );
    if (!actor) return refuse(400, 'actor');
    // An activity speaks for its actor's server only: ids elsewhere would take another's name.
    if (activity.id !== undefined && httpUrl(activity.id)?.origin !== actor.origin)
      return refuse(401, 'foreign-id');
    const claim = signatureClaim((name) => request.headers.get(name));
    // Before any fetch: a key elsewhere than the actor's own server is never the actor's.
    if (claim && httpUrl(claim.keyId)?.origin !== actor.origin) return refuse(401, 'foreign-key');
    if (!claim && !carriesProof(json)) return refuse(401, 'unsigned');
    return { json: json as Record<string, unknown>, actor, keyId: claim?.keyId ?? null };
  }

  /**
   * Loads the signing key's document (the actor's, on its own origin) when the key is not known
   * yet, so that `verify` then waits on no other server: a caller that verifies a few POSTs at a
   * time need not hold a turn through a fetch. What it loads is the loader's to keep.
   */
  async warm(post: ReadPost): Promise<void> {
    if (post.keyId === null || this.keys.get(post.keyId) !== undefined) return;
    // A key that cannot be fetched is none for a while, as Fedify's own check would have it.
    await this.options.documentLoader(post.keyId).catch(() => this.keys.set(post.keyId!, null, DISTRUST_MS));
  }

  /** The signature (or proof) of a POST `read` passed, by a key its actor's own document lists. */
  async verify(request: Request, post: ReadPost): Promise<GateVerdict> {
    const { json, actor, keyId } = post;
    if (keyId !== null) {
      const verification = await verifyRequestDetailed(request, {
        documentLoader: this.options.documentLoader,
        contextLoader: this.options.contextLoader,
        keyCache: this.keyCache,
      });
      if (!verification.verified || verification.key.id?.href !== keyId) return refuse(401, 'signature');
      if (!(await this.actorListsKey(actor.href, keyId))) return refuse(401, 'not-listed');
    } else if (!(await this.verifyProof(json, actor))) return refuse(401, 'signature');

    return { ok: true, actorId: actor.href, signer: actor.hostname.toLowerCase(), activity: json };
  }

  /**
   * An FEP-8b32 proof (eddsa-jcs-2022) by a method on the actor's origin that the actor's own
   * document lists: the method's id, or null. The listing is checked before the proof itself,
   * whose check may normalise the body (JSON-LD work) when the body as sent does not verify.
   */
  private async verifyProof(json: Record<string, unknown>, actor: URL): Promise<string | null> {
    const proofs = Array.isArray(json.proof) ? json.proof : [json.proof];
    if (proofs.length !== 1) return null;
    const proof = proofs[0] as Record<string, unknown>;
    const method = httpUrl(proof.verificationMethod);
    if (
      !method ||
      method.origin !== actor.origin ||
      proof.type !== 'DataIntegrityProof' ||
      proof.cryptosuite !== 'eddsa-jcs-2022' ||
      proof.proofPurpose !== 'assertionMethod' ||
      typeof proof.created !== 'string' ||
      typeof proof.proofValue !== 'string'
    )
      return null;
    if (!(await this.actorListsKey(actor.href, method.href))) return null;
    const loaders = {
      documentLoader: this.options.documentLoader,
      contextLoader: this.options.contextLoader,
      keyCache: this.keyCache,
    };
    try {
      const parsed = await DataIntegrityProof.fromJsonLd({ '@context': PROOF_CONTEXT, ...proof }, loaders);
      const key = await verifyProof(json, parsed, loaders);
      return key?.id?.href === method.href ? method.href : null;
    } catch {
      return null;
    }
  }

  /**
   * Whether the actor's own document (fetched from its id, on its own server) lists the key as
   * its `publicKey` or an `assertionMethod`. A cached document that does not is fetched once more
   * (a key just added).
   */
  private async actorListsKey(actorId: string, keyId: string): Promise<boolean> {
    const cacheKey = `${actorId} ${keyId}`;
    const known = this.listings.get(cacheKey);
    if (known !== undefined) return known;
    const listed = async (loader: DocumentLoader) => {
      const doc = (await loader(actorId).catch(() => null))?.document as Record<string, unknown> | undefined;
      if (typeof doc !== 'object' || doc === null || doc.id !== actorId) return false;
      return [...idsOf(doc.publicKey), ...idsOf(doc.assertionMethod)].includes(keyId);
    };
    const result =
      (await listed(this.options.documentLoader)) || (await listed(this.options.freshDocumentLoader));
    this.listings.set(cacheKey, result, result ? TRUST_MS : DISTRUST_MS);
    return result;
  }
}
