/** The search query lives in the URL (`?q=`), so a search can be shared, reloaded and navigated back to. */
export const SEARCH_PARAM = 'q';

/** The active query: trimmed, or null when blank (a blank query closes the search, docs/product.md#how-the-screens-behave). */
export function activeQuery(params: URLSearchParams): string | null {
  const query = params.get(SEARCH_PARAM)?.trim();
  return query ? query : null;
}

/** The search a query opens: page 1 of its results, on the page where it started. */
export function searchHref(pathname: string, query: string): string {
  return `${pathname}?${new URLSearchParams({ [SEARCH_PARAM]: query.trim() }).toString()}`;
}
