import { isAdmin, isTokenValid } from '@blog/contracts';
import { useEffect, type ReactNode } from 'react';
import { Navigate } from 'react-router-dom';
import { useSession } from '../session/SessionContext';

/**
 * Guards the admin area (SPEC.md §4): a missing, unparseable or expired token clears the
 * session and sends the visitor to /login; a valid session without role admin goes to /login too.
 */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { session, logout } = useSession();
  const tokenValid = session !== null && isTokenValid(session.token);

  useEffect(() => {
    if (!tokenValid) logout();
  }, [tokenValid, logout]);

  if (!tokenValid || !isAdmin(session.role)) return <Navigate to="/login" replace />;
  return children;
}
