// Fedify's delivery POSTs call the global fetch, with no address check (G11). Its queue workers run
// here, inside `deliveryScope`: every global fetch made in that scope (the POSTs, and anything else
// the workers reach) goes through the outbound policy. Outside it the global fetch is left as it was:
// the one-process launcher and the test stacks run other code in this process that calls fetch, and
// a process-wide swap (libs/federation's routeGlobalFetch) would put the policy's caps (1 MB, no
// redirects, no private address) on all of it.
import { AsyncLocalStorage } from 'node:async_hooks';
import { webFetch, type OutboundAllowList, type WebFetchOptions } from '@blog/server-kit';

const deliveryScope = new AsyncLocalStorage<typeof fetch>();
let installed = false;

function installOnce(): void {
  if (installed) return;
  installed = true;
  const previous = globalThis.fetch;
  globalThis.fetch = (input, init) => (deliveryScope.getStore() ?? previous)(input, init);
}

/** Runs `work` (and everything it starts) with the global fetch on the outbound policy. */
export function runWithPolicyFetch<T>(allow: OutboundAllowList, options: WebFetchOptions, work: () => T): T {
  installOnce();
  return deliveryScope.run(webFetch(allow, options), work);
}
