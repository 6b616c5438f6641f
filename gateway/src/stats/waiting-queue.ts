/**
 * A first-in first-out queue that never holds more than `capacity` items: past it a new item
 * is refused and counted in `dropped` (the memory a flood or a long outage may take is bounded).
 * Taking from the front moves an index; the array is compacted once most of it is taken.
 */
export class WaitingQueue<T> {
  private items: T[] = [];
  private head = 0;
  /** Items refused because the queue was full, since it was made. */
  dropped = 0;

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.items.length - this.head;
  }

  /** Adds `item` at the back; false (and counted) when the queue is full. */
  push(item: T): boolean {
    if (this.length >= this.capacity) {
      this.dropped++;
      return false;
    }
    this.items.push(item);
    return true;
  }

  /** The first `n` items, left in place. */
  peek(n: number): T[] {
    return this.items.slice(this.head, this.head + n);
  }

  /** Removes the first `n` items. */
  remove(n: number): void {
    this.head = Math.min(this.items.length, this.head + n);
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
