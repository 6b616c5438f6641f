import { SessionKeys } from '@blog/contracts';
import { createSessionStore, loadStoredSession } from './store';
import { MemoryStorage } from '../testing/memoryStorage';

const tokenWithExp = (exp: number) =>
  `e30.${Buffer.from(JSON.stringify({ sub: '1', exp })).toString('base64url')}.sig`;
const now = 1_900_000_000;

function storageWith(token: string | null, username: string | null = 'ann', role: string | null = 'user') {
  const storage = new MemoryStorage();
  if (token !== null) storage.setItem(SessionKeys.token, token);
  if (username !== null) storage.setItem(SessionKeys.username, username);
  if (role !== null) storage.setItem(SessionKeys.role, role);
  return storage;
}

describe('loadStoredSession', () => {
  it('uses the stored session when all three items exist and the token is unexpired', () => {
    const token = tokenWithExp(now + 60);
    const storage = storageWith(token);
    expect(loadStoredSession(storage, now)).toEqual({ token, username: 'ann', role: 'user' });
    expect(storage.items.size).toBe(3);
  });

  it.each([
    ['an expired token', storageWith(tokenWithExp(now - 1))],
    ['an unparseable token', storageWith('not-a-token')],
    ['a missing token', storageWith(null)],
    ['a missing username', storageWith(tokenWithExp(now + 60), null)],
    ['a missing role', storageWith(tokenWithExp(now + 60), 'ann', null)],
  ])('clears all three items for %s', (_case, storage) => {
    expect(loadStoredSession(storage, now)).toBeNull();
    expect(storage.items.size).toBe(0);
  });
});

describe('createSessionStore', () => {
  it('stores and clears the three items and tells subscribers', () => {
    const storage = new MemoryStorage();
    const store = createSessionStore(storage);
    const seen: unknown[] = [];
    store.subscribe(() => seen.push(store.get()));

    const session = { token: tokenWithExp(now), username: 'root', role: 'admin' };
    store.set(session);
    expect(Object.fromEntries(storage.items)).toEqual({
      [SessionKeys.token]: session.token,
      [SessionKeys.username]: 'root',
      [SessionKeys.role]: 'admin',
    });
    store.clear();
    expect(storage.items.size).toBe(0);
    expect(seen).toEqual([session, null]);
  });
});
