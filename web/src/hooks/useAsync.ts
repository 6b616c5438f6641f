import { useEffect, useRef, useState, type DependencyList } from 'react';

export type AsyncState<T> =
  { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'ready'; data: T };

/**
 * Runs `load` when the deps change and keeps its state; an older call still in flight is
 * aborted, so a slow answer never overwrites a newer one.
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
  /** Data already at hand for the first deps (written into the page by the server). */
  initial: T | null = null,
): AsyncState<T> {
  const [state, setState] = useState<AsyncState<T>>(
    initial ? { status: 'ready', data: initial } : { status: 'loading' },
  );
  const skipFirst = useRef(initial !== null);
  useEffect(() => {
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    const controller = new AbortController();
    setState({ status: 'loading' });
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: 'ready', data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ status: 'error', error });
      },
    );
    return () => controller.abort();
    // The caller names what `load` depends on.
  }, deps);
  return state;
}
