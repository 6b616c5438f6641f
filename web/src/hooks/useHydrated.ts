import { useSyncExternalStore } from 'react';

const subscribe = () => () => {};

/**
 * False on the server and while the browser hydrates the server's HTML, true from then on
 * (and at once for anything first drawn in the browser). What differs between the two sides,
 * such as a date in the reader's time zone or the carousel, waits for it, so the first render
 * in the browser matches the server's markup exactly.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
