/**
 * Reading a token's expiry without verifying it: the browser uses this to drop a stale
 * session (docs/product.md#how-the-screens-behave). A missing, unparseable or expired token counts as invalid.
 */
export function readTokenExpiry(token: string | null | undefined): number | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
    const payload: unknown = JSON.parse(atob(padded));
    if (typeof payload !== 'object' || payload === null) return null;
    const exp = (payload as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : null;
  } catch {
    return null;
  }
}

export function isTokenValid(token: string | null | undefined, nowSeconds = Date.now() / 1000): boolean {
  const exp = readTokenExpiry(token);
  return exp !== null && exp > nowSeconds;
}
