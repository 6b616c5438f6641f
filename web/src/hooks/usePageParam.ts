import { useCallback } from 'react';
import { useSearchParams } from 'react-router-dom';
import { parsePage } from '../lib/pagination';

/**
 * The current page of a list, kept in the URL (`?page=`) so it can be shared, reloaded and
 * reached with the back button. Page 1 leaves the parameter out.
 */
export function usePageParam(name = 'page'): [number, (page: number) => void] {
  const [params, setParams] = useSearchParams();
  const page = parsePage(params.get(name));
  const setPage = useCallback(
    (next: number) =>
      setParams((current) => {
        const copy = new URLSearchParams(current);
        if (next <= 1) copy.delete(name);
        else copy.set(name, String(next));
        return copy;
      }),
    [name, setParams],
  );
  return [page, setPage];
}
