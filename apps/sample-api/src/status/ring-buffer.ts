/** The last `capacity` items pushed, oldest first: a fixed array and a moving start, so memory never grows. */
export class RingBuffer<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer; received ${capacity}`);
  }

  push(item: T): void {
    if (this.items.length < this.capacity) {
      this.items.push(item);
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
  }

  /** A copy, oldest first. */
  toArray(): T[] {
    return [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
  }

  get size(): number {
    return this.items.length;
  }
}
