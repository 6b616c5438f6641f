import { isAdmin, isTokenValid } from '@blog/contracts';
import { useEffect, type ReactNode } from 'react';
import { Navigate } from 'react-router-dom';
import { useSession } from '../session/SessionContext';

/** The session when its token is still valid; a missing, unparseable or expired token clears it. */
function useValidSession() {
  const { session, logout } = useSession();
  const tokenValid = session !== null && isTokenValid(session.token);
  useEffect(() => {
    if (!tokenValid) logout();
  }, [tokenValid, logout]);
  return tokenValid ? session : null;
}

/**
 * Guards the admin area (docs/product.md#how-the-screens-behave): without a valid session, or with one whose role is
 * not admin, the visitor goes to /login.
 */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const session = useValidSession();
  if (!session || !isAdmin(session.role)) return <Navigate to="/login" replace />;
  return children;
}

/** Guards a page for any signed-in person (their account): without a valid session, /login. */
export function RequireSignedIn({ children }: { children: ReactNode }) {
  const session = useValidSession();
  if (!session) return <Navigate to="/login" replace />;
  return children;
}
