import type { SessionStorage } from '../session/store';

/** An in-memory stand-in for localStorage, for unit tests that run in Node. */
export class MemoryStorage implements SessionStorage {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}
