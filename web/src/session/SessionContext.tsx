import { createContext, useCallback, useContext, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import type { Session, SessionStore } from './store';

interface SessionContextValue {
  /** The signed-in user, or null for a guest. */
  session: Session | null;
  /** Stores token, username and role after a successful sign-in. */
  login(session: Session): void;
  /** Clears the three stored items. */
  logout(): void;
}

const guest = () => null;

const SessionContext = createContext<SessionContextValue | null>(null);

export function SessionProvider({ store, children }: { store: SessionStore; children: ReactNode }) {
  // The server renders every page as a guest sees it (the session lives in this browser's
  // storage), so hydration starts as a guest too and the signed-in state follows at once.
  const session = useSyncExternalStore(store.subscribe, store.get, guest);
  const login = useCallback((next: Session) => store.set(next), [store]);
  const logout = useCallback(() => store.clear(), [store]);
  const value = useMemo(() => ({ session, login, logout }), [session, login, logout]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession must be used inside <SessionProvider>');
  return value;
}
