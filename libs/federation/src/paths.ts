// Where the blog's ActivityPub documents live (ids must never change once published).
/** The actor's fixed identifier in its URIs; the handle people type is mapped to it (G9). */
export const FEDERATION_ACTOR_IDENTIFIER = 'blog';
export const ACTOR_PATH = '/ap/actor/{identifier}';
export const SHARED_INBOX_PATH = '/ap/inbox';
/** Where an accepted quote's stamp (FEP-044f) is served: a stable URL of ours, for third parties to check. */
export const QUOTE_STAMP_PATH = '/ap/quotes/{id}';
/** Inbox POSTs (the actor's and the shared one): the middleware caps their bodies. One rule, in the contracts. */
export { FEDERATION_INBOX_PATH as INBOX_PATHS } from '@blog/contracts';
