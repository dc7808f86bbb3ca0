/**
 * A tag's member index in memory, as the Redis sorted set keeps it (see the tag scripts): each member's expiry, and
 * a min-heap of (expiry, member) so the expired ones are found earliest first without visiting the live ones. A
 * member registered again keeps the later of its expiries; its earlier heap item becomes stale and is dropped when it
 * comes up, so the heap holds at most one item per registration not yet pruned.
 */
export class MemoryTagIndex {
  private readonly expiries = new Map<string, number>();
  private readonly heap: Array<{ at: number; member: string }> = [];

  /** How many members it holds, expired or not (ZCARD). */
  get size(): number {
    return this.expiries.size;
  }

  /** A member's expiry (ZSCORE), or undefined. */
  expiryOf(member: string): number | undefined {
    return this.expiries.get(member);
  }

  /** Adds a member, or moves its expiry later (ZADD GT). */
  add(member: string, at: number): void {
    const known = this.expiries.get(member);
    if (known !== undefined && known >= at) return;
    this.expiries.set(member, at);
    this.push({ at, member });
  }

  /** Removes up to `max` members whose expiry is at or before `now`, the earliest first; returns how many. */
  prune(now: number, max: number): number {
    let removed = 0;
    while (removed < max && this.heap.length > 0 && this.heap[0].at <= now) {
      const { at, member } = this.pop();
      // A stale item: the member was registered again with a later expiry (its own item is further down).
      if (this.expiries.get(member) !== at) continue;
      this.expiries.delete(member);
      removed++;
    }
    return removed;
  }

  /** The members whose expiry is after `now`. */
  live(now: number): string[] {
    const members: string[] = [];
    for (const [member, at] of this.expiries) if (at > now) members.push(member);
    return members;
  }

  private push(item: { at: number; member: string }): void {
    const heap = this.heap;
    let i = heap.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].at <= item.at) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = item;
  }

  private pop(): { at: number; member: string } {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= heap.length) break;
        const child = left + 1 < heap.length && heap[left + 1].at < heap[left].at ? left + 1 : left;
        if (heap[child].at >= last.at) break;
        heap[i] = heap[child];
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}
