/**
 * Where sign-in goes back to (`/login?next=/garage/post#comments`): a path on this site only,
 * never another origin ("//evil.example", "/\\evil.example", "https://…"), else null.
 */
export function nextPath(value: string | null): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  try {
    const url = new URL(value, 'http://site.invalid');
    if (url.origin !== 'http://site.invalid') return null;
    // The sign-in pages themselves would only loop back here.
    if (url.pathname === '/login' || url.pathname === '/register') return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}
