import type { BlogFederation } from '@blog/federation';

/**
 * The running federation, for services the federation's own ports call (the Reader, following):
 * injected by this class, which FederationRuntime provides, so their files do not import the
 * runtime that imports them.
 */
export abstract class FederationRef {
  abstract get blog(): BlogFederation;
}
