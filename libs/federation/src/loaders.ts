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

export function loaderFactories(allow: OutboundAllowList, kv: KvStore, userAgent?: string): LoaderFactories {
  const fetchFn = webFetch(allow, { userAgent });
  const documents = kvCache({ loader: loaderOn(fetchFn), kv, prefix: ['_blog', 'document'] });
  const contexts = kvCache({ loader: loaderOn(fetchFn), kv, prefix: ['_blog', 'context'] });
  return {
    documentLoaderFactory: () => documents,
    contextLoaderFactory: () => contexts,
    authenticatedDocumentLoaderFactory: (identity) =>
      loaderOn(fetchFn, (r) => signRequest(r, identity.privateKey, identity.keyId)),
  };
}
