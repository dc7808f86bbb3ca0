/** Most keys remembered at once: a key space sent by clients cannot grow this without bound. */
const MAX_KEYS = 10_000;

/**
 * The keys whose loader failed while a grace value answered: until `retryMs` has passed, their calls are answered
 * from grace without running the loader again, so a failing data source gets one call per key and interval from this
 * process rather than one per request. In process only: each instance tries again on its own clock.
 */
export class GraceRetry {
  /** Entry key → when its loader may run again (`performance.now()`), oldest first. */
  private readonly until = new Map<string, number>();

  constructor(private readonly retryMs: number) {}

  /** Records a failed load of `entry`. */
  failed(entry: string): void {
    if (this.retryMs === 0) return;
    this.until.delete(entry);
    if (this.until.size >= MAX_KEYS) this.until.delete(this.until.keys().next().value as string);
    this.until.set(entry, performance.now() + this.retryMs);
  }

  /** Whether `entry`'s loader failed less than `retryMs` ago (answer from grace without loading). */
  waiting(entry: string): boolean {
    const at = this.until.get(entry);
    if (at === undefined) return false;
    if (at > performance.now()) return true;
    this.until.delete(entry);
    return false;
  }

  /** A load of `entry` succeeded: its next failure starts a new interval. */
  succeeded(entry: string): void {
    if (this.until.size > 0) this.until.delete(entry);
  }
}
