import { useSearchParams } from 'react-router-dom';

/**
 * A keyset page's cursor in the URL (`?before=`: the last id of the page before), so an older
 * page of the Reader or the notifications can be shared and reloaded. Anything else is none.
 */
export function useBeforeParam(): [string | null, (before: string | null) => void] {
  const [params, setParams] = useSearchParams();
  const value = params.get('before');
  const before = value && /^[1-9][0-9]{0,17}$/.test(value) ? value : null;
  const set = (next: string | null) =>
    setParams((current) => {
      const copy = new URLSearchParams(current);
      if (next) copy.set('before', next);
      else copy.delete('before');
      return copy;
    });
  return [before, set];
}

/** Back to the newest page, and on to an older one while there is one. */
export function CursorPages({
  label,
  older,
  before,
  next,
  onGo,
}: {
  label: string;
  older: string;
  before: string | null;
  next: string | null;
  onGo(cursor: string | null): void;
}) {
  return (
    <nav className="reader-pages" aria-label={label}>
      {before && (
        <button type="button" className="button button-secondary" onClick={() => onGo(null)}>
          Newest
        </button>
      )}
      {next && (
        <button type="button" className="button button-secondary" onClick={() => onGo(next)}>
          {older}
        </button>
      )}
    </nav>
  );
}
