import { useEffect, useRef, useState, type DependencyList } from 'react';

export type AsyncState<T> =
  { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'ready'; data: T };

const LOADING = { status: 'loading' } as const;
const sameDeps = (a: DependencyList, b: DependencyList) =>
  a.length === b.length && a.every((value, i) => Object.is(value, b[i]));

/**
 * Runs `load` when the deps change and keeps its state; an older call still in flight is
 * aborted, so a slow answer never overwrites a newer one. The state is that of the current
 * deps only: after a change the caller sees 'loading' at once, never the previous answer
 * under the new page number.
 */
export function useAsync<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
  /** Data already at hand for the first deps (written into the page by the server). */
  initial: T | null = null,
): AsyncState<T> {
  const [state, setState] = useState<{ deps: DependencyList; value: AsyncState<T> }>(() => ({
    deps: initial ? deps : [],
    value: initial ? { status: 'ready', data: initial } : LOADING,
  }));
  const skipFirst = useRef(initial !== null);
  useEffect(() => {
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    const controller = new AbortController();
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ deps, value: { status: 'ready', data } });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ deps, value: { status: 'error', error } });
      },
    );
    return () => controller.abort();
    // The caller names what `load` depends on.
  }, deps);
  return sameDeps(state.deps, deps) ? state.value : LOADING;
}
