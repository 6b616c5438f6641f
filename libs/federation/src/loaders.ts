// Fedify's three loader hooks, all through the outbound policy: documents and JSON-LD contexts (cached
// in the KV store, G2: Fedify caches only its built-in loader; preloaded contexts never fetched), and
// signed ("authorized fetch") document requests, not cached because what a server shows a signed
// request may differ.
import { kvCache, signRequest, type KvStore } from '@fedify/fedify';
import {
  getRemoteDocument,
  preloadedContexts,
  type AuthenticatedDocumentLoaderFactory,
  type DocumentLoader,
  type DocumentLoaderFactory,
  type RemoteDocument,
} from '@fedify/vocab-runtime';
import { webFetch, type OutboundAllowList } from '@blog/server-kit';

const ACCEPT =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

function loaderOn(fetchFn: typeof fetch, sign?: (r: Request) => Promise<Request>): DocumentLoader {
  const load: DocumentLoader = async (url, options): Promise<RemoteDocument> => {
    if (url in preloadedContexts)
      return { contextUrl: null, documentUrl: url, document: preloadedContexts[url] };
    let request = new Request(url, { headers: { accept: ACCEPT }, signal: options?.signal ?? null });
    if (sign) request = await sign(request);
    const response = await fetchFn(request);
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status} for ${url}`);
    }
    // Follows Link rel=alternate and redirects by calling `load` again (each hop checked again).
    return getRemoteDocument(url, response, load);
  };
  return load;
}

export interface LoaderFactories {
  documentLoaderFactory: DocumentLoaderFactory;
  contextLoaderFactory: DocumentLoaderFactory;
  authenticatedDocumentLoaderFactory: AuthenticatedDocumentLoaderFactory;
}

/**
 * Whole-fetch deadlines (connect to last byte). An inbox POST waits for its signer's key and for
 * any JSON-LD context it names before its signature is checked, inside the gateway's RPC wait
 * (5 s): a server that drips its answer must not hold the request past it. A context, once
 * loaded, is cached; the common ones are preloaded and never fetched.
 */
export const DOCUMENT_FETCH_MS = 4000;
export const CONTEXT_FETCH_MS = 1500;

export function loaderFactories(allow: OutboundAllowList, kv: KvStore, userAgent?: string): LoaderFactories {
  const documentFetch = webFetch(allow, { userAgent, timeoutMs: DOCUMENT_FETCH_MS });
  const contextFetch = webFetch(allow, { userAgent, timeoutMs: CONTEXT_FETCH_MS });
  const documents = kvCache({ loader: loaderOn(documentFetch), kv, prefix: ['_blog', 'document'] });
  const contexts = kvCache({ loader: loaderOn(contextFetch), kv, prefix: ['_blog', 'context'] });
  return {
    documentLoaderFactory: () => documents,
    contextLoaderFactory: () => contexts,
    authenticatedDocumentLoaderFactory: (identity) =>
      loaderOn(documentFetch, (r) => signRequest(r, identity.privateKey, identity.keyId)),
  };
}
