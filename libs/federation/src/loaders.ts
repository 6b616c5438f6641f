// Fedify's three loader hooks, all through the outbound policy: documents and JSON-LD contexts (cached
// in the KV store: Fedify caches only its built-in loader; preloaded contexts never fetched), and
// signed ("authorized fetch") document requests, not cached because what a server shows a signed
// request may differ. Beside them: the same documents uncached (the inbox gate's second look), and
// with a short deadline (fetches made while an inbox activity is handled).
import { kvCache, signRequest, type KvKey, type KvStore } from '@fedify/fedify';
import {
  getRemoteDocument,
  preloadedContexts,
  type AuthenticatedDocumentLoaderFactory,
  type DocumentLoader,
  type DocumentLoaderFactory,
  type RemoteDocument,
} from '@fedify/vocab-runtime';
import { webFetch, type OutboundAllowList } from '@blog/server-kit';
import { ExpiringMap } from './expiring-map.js';

const ACCEPT =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

/** Redirects a document fetch follows (a moved actor answers 301), each hop checked by the policy again. */
export const MAX_DOCUMENT_REDIRECTS = 3;
const REDIRECT = new Set([301, 302, 303, 307, 308]);

function loaderOn(fetchFn: typeof fetch, sign?: (r: Request) => Promise<Request>): DocumentLoader {
  const load: DocumentLoader = async (url, options): Promise<RemoteDocument> => {
    if (url in preloadedContexts)
      return { contextUrl: null, documentUrl: url, document: preloadedContexts[url] };
    let target = url;
    for (let hop = 0; ; hop++) {
      let request = new Request(target, { headers: { accept: ACCEPT }, signal: options?.signal ?? null });
      if (sign) request = await sign(request);
      const response = await fetchFn(request);
      const location = REDIRECT.has(response.status) ? response.headers.get('location') : null;
      if (location !== null) {
        await response.body?.cancel();
        if (hop >= MAX_DOCUMENT_REDIRECTS)
          throw new Error(`more than ${MAX_DOCUMENT_REDIRECTS} redirects for ${url}`);
        target = new URL(location, target).href;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`HTTP ${response.status} for ${target}`);
      }
      // The document's address is the last hop's; a Link rel=alternate calls `load` again.
      return getRemoteDocument(target, response, load);
    }
  };
  return load;
}

export interface LoaderFactories {
  documentLoaderFactory: DocumentLoaderFactory;
  contextLoaderFactory: DocumentLoaderFactory;
  authenticatedDocumentLoaderFactory: AuthenticatedDocumentLoaderFactory;
}

/** The loaders the blog uses outside Fedify's hooks. */
export interface BlogLoaders {
  documents: DocumentLoader;
  contexts: DocumentLoader;
  /** Documents never taken from the cache. */
  freshDocuments: DocumentLoader;
  /** Documents with INBOX_FETCH_MS as the whole deadline, cached: what an inbox handler fetches. */
  quickDocuments: DocumentLoader;
}

/**
 * Whole-fetch deadlines (connect to last byte). An inbox POST waits for its signer's key and for
 * any JSON-LD context it names before its signature is checked, inside the gateway's RPC wait
 * (5 s): a server that drips its answer must not hold the request past it. A context, once
 * loaded, is cached; the common ones are preloaded and never fetched.
 */
export const DOCUMENT_FETCH_MS = 4000;
export const CONTEXT_FETCH_MS = 1500;
/**
 * A fetch made while a queued inbox activity is handled (the object a Create names, an actor)
 * gets this long in all: a slow server parks its own activity for a retry instead of holding a
 * worker that other servers' activities wait for.
 */
export const INBOX_FETCH_MS = 2000;

/** How long, and how many, documents a process keeps in memory in front of the KV cache. */
export const RECENT_DOCUMENT_MS = 60_000;
const RECENT_DOCUMENTS = 256;
/**
 * Only documents this small (as JSON) are kept in memory: an actor is a few KB, and a stranger's
 * servers may answer up to the fetcher's 1 MB each, which would make 256 of them hundreds of MB.
 */
export const RECENT_DOCUMENT_MAX_CHARS = 32 * 1024;

/**
 * Documents loaded in the last minute, kept in memory in front of the KV cache (a database round
 * trip each): an inbox POST loads its signer's key and then its actor, and the queued activity
 * loads the actor again. A key id's fragment is dropped before anything (no server ever sees it,
 * and the answer's documentUrl is without it), so `…/users/a#main-key` and `…/users/a` are one
 * fetch and one entry (a large document stays in the database cache only). Requests through one loader for a document already on its way share that
 * fetch (unless the caller brings its own abort signal, which must not end the others' wait); the
 * quick loader does not wait on the other's longer deadline. Each caller gets a copy
 * (a caller may change what it gets).
 */
function recentDocuments(recent: ExpiringMap<RemoteDocument>, loader: DocumentLoader): DocumentLoader {
  const loading = new Map<string, Promise<RemoteDocument>>();
  return async (url, options) => {
    if (url in preloadedContexts) return loader(url, options);
    const hash = url.indexOf('#');
    const target = hash < 0 ? url : url.slice(0, hash);
    const known = recent.get(target);
    if (known) return structuredClone(known);
    let load = options?.signal ? undefined : loading.get(target);
    if (!load) {
      load = loader(target, options);
      if (!options?.signal) {
        loading.set(target, load);
        load.then(
          () => loading.delete(target),
          () => loading.delete(target),
        );
      }
    }
    const document = await load;
    if (JSON.stringify(document.document).length <= RECENT_DOCUMENT_MAX_CHARS)
      recent.set(target, document, RECENT_DOCUMENT_MS);
    return structuredClone(document);
  };
}

export function blogLoaders(allow: OutboundAllowList, kv: KvStore, userAgent?: string): BlogLoaders {
  const documentFetch = webFetch(allow, { userAgent, timeoutMs: DOCUMENT_FETCH_MS });
  const contextFetch = webFetch(allow, { userAgent, timeoutMs: CONTEXT_FETCH_MS });
  const quickFetch = webFetch(allow, { userAgent, timeoutMs: INBOX_FETCH_MS });
  const prefix: KvKey = ['_blog', 'document'];
  const recent = new ExpiringMap<RemoteDocument>(RECENT_DOCUMENTS);
  return {
    documents: recentDocuments(recent, kvCache({ loader: loaderOn(documentFetch), kv, prefix })),
    contexts: kvCache({ loader: loaderOn(contextFetch), kv, prefix: ['_blog', 'context'] }),
    freshDocuments: loaderOn(documentFetch),
    quickDocuments: recentDocuments(recent, kvCache({ loader: loaderOn(quickFetch), kv, prefix })),
  };
}

export function loaderFactories(
  allow: OutboundAllowList,
  kv: KvStore,
  userAgent?: string,
  loaders: BlogLoaders = blogLoaders(allow, kv, userAgent),
): LoaderFactories {
  const documentFetch = webFetch(allow, { userAgent, timeoutMs: DOCUMENT_FETCH_MS });
  return {
    documentLoaderFactory: () => loaders.documents,
    contextLoaderFactory: () => loaders.contexts,
    authenticatedDocumentLoaderFactory: (identity) =>
      loaderOn(documentFetch, (r) => signRequest(r, identity.privateKey, identity.keyId)),
  };
}
