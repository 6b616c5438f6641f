import { SessionKeys, isTokenValid } from '@blog/contracts';

/** The signed-in user as kept in browser storage (docs/product.md#the-session). */
export interface Session {
  token: string;
  username: string;
  role: string;
}

/** The part of the Web Storage API the session needs (localStorage in the browser). */
export type SessionStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function clearStoredSession(storage: SessionStorage): void {
  storage.removeItem(SessionKeys.token);
  storage.removeItem(SessionKeys.username);
  storage.removeItem(SessionKeys.role);
}

/**
 * The stored session, used only if all three items exist and the token is not expired;
 * otherwise all three are cleared and the visitor is anonymous (docs/product.md#how-the-screens-behave).
 */
export function loadStoredSession(storage: SessionStorage, nowSeconds?: number): Session | null {
  const token = storage.getItem(SessionKeys.token);
  const username = storage.getItem(SessionKeys.username);
  const role = storage.getItem(SessionKeys.role);
  if (token && username && role && isTokenValid(token, nowSeconds)) {
    return { token, username, role };
  }
  clearStoredSession(storage);
  return null;
}

/**
 * The session as a small external store: storage is the truth, React subscribes to it
 * (useSyncExternalStore) and the API client clears it on a 401/403 without going through React.
 */
export interface SessionStore {
  get(): Session | null;
  set(session: Session): void;
  clear(): void;
  subscribe(listener: () => void): () => void;
}

export function createSessionStore(storage: SessionStorage): SessionStore {
  let current = loadStoredSession(storage);
  const listeners = new Set<() => void>();
  const emit = () => listeners.forEach((listener) => listener());

  return {
    get: () => current,
    set(session) {
      storage.setItem(SessionKeys.token, session.token);
      storage.setItem(SessionKeys.username, session.username);
      storage.setItem(SessionKeys.role, session.role);
      current = { ...session };
      emit();
    },
    clear() {
      clearStoredSession(storage);
      if (current !== null) {
        current = null;
        emit();
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
