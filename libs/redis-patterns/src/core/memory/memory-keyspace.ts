/** One key of the in-memory keyspace: its value (any shape the owning store chooses) and when it expires. */
interface MemoryEntry {
  value: unknown;
  /** Epoch ms; `Infinity` for a key without TTL. */
  expiresAt: number;
}

/** How many keys an expiry sweep visits at most per write (expired keys are also dropped when read). */
const SWEEP_STEP = 16;

/**
 * The keys of a module running in memory (`connection: 'memory://'`), shared by every pattern's in-memory store.
 * Keys are the very strings the Redis stores would write (same prefix, same hash tags), so `clearKeys`, key
 * listings and the TTL invariant work the same way in both modes. Expiry is lazy on read, plus a bounded sweep on
 * write, so a test that writes many short-lived keys does not grow memory without bound. Time is this process's
 * clock: a single process has no clocks to disagree.
 */
export class MemoryKeyspace {
  private readonly entries = new Map<string, MemoryEntry>();
  private sweepCursor?: Iterator<[string, MemoryEntry]>;

  /** The current time in ms (overridable in a subclass for tests of expiry). */
  now(): number {
    return Date.now();
  }

  /** The live value of a key, or undefined. */
  get<T>(key: string): T | undefined {
    return this.live(key)?.value as T | undefined;
  }

  /** Sets a value with a TTL in ms (`Infinity` for none: only the documented exceptions do that). */
  set(key: string, value: unknown, ttlMs: number): void {
    this.sweep();
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /** Replaces a live key's value, keeping its TTL; false when the key is missing. */
  update(key: string, value: unknown): boolean {
    const entry = this.live(key);
    if (!entry) return false;
    entry.value = value;
    return true;
  }

  /** Sets the TTL of a live key; false when the key is missing. */
  expire(key: string, ttlMs: number): boolean {
    const entry = this.live(key);
    if (!entry) return false;
    entry.expiresAt = this.now() + ttlMs;
    return true;
  }

  /** Remaining lifetime in ms as PTTL answers: −2 missing, −1 no TTL. */
  pttl(key: string): number {
    const entry = this.live(key);
    if (!entry) return -2;
    return entry.expiresAt === Infinity ? -1 : Math.max(0, Math.ceil(entry.expiresAt - this.now()));
  }

  /** Deletes keys; resolves to how many existed. */
  delete(...keys: string[]): number {
    let deleted = 0;
    for (const key of keys) if (this.live(key) && this.entries.delete(key)) deleted++;
    return deleted;
  }

  /** The live keys that start with `prefix`. */
  keys(prefix = ''): string[] {
    const found: string[] = [];
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix) && this.live(key)) found.push(key);
    return found;
  }

  /** Deletes every key that starts with `prefix`; resolves to how many there were. */
  deleteByPrefix(prefix: string): number {
    return this.delete(...this.keys(prefix));
  }

  private live(key: string): MemoryEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.now();
    for (let i = 0; i < SWEEP_STEP; i++) {
      this.sweepCursor ??= this.entries.entries();
      const next = this.sweepCursor.next();
      if (next.done) {
        this.sweepCursor = undefined;
        return;
      }
      const [key, entry] = next.value;
      if (entry.expiresAt <= now) this.entries.delete(key);
    }
  }
}
