import { useEffect, useState, type FormEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { activeQuery, searchHref } from '../lib/searchParams';

/** The header search box (docs/product.md#screens): submits only non-blank trimmed text; a clear button. */
export function SearchBox() {
  const [params] = useSearchParams();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const current = activeQuery(params) ?? '';
  const [text, setText] = useState(current);

  // Back, forward and tag links change the query: the box follows the URL.
  useEffect(() => setText(current), [current]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const query = text.trim();
    if (!query) return;
    navigate(searchHref(pathname, query));
  };
  const clear = () => {
    setText('');
    if (current) navigate(pathname);
  };

  return (
    // Without JavaScript it is a plain GET form: `?q=` on the page where it was sent.
    <form className="search-box" role="search" method="get" action={pathname} onSubmit={submit}>
      <label htmlFor="site-search" className="visually-hidden">
        Search posts
      </label>
      <input
        id="site-search"
        name="q"
        type="search"
        placeholder="Search posts..."
        value={text}
        maxLength={200}
        onChange={(event) => setText(event.target.value)}
      />
      {text && (
        <button type="button" className="search-clear" onClick={clear} aria-label="Clear search">
          ×
        </button>
      )}
      <button type="submit" className="button search-submit">
        Search
      </button>
    </form>
  );
}
