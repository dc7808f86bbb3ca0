/**
 * An abort signal made only when someone asks for it. A held lease's work is aborted when the lease is lost, which
 * is rare, and most work never looks at its signal (a `@WithLock` method reads it only through
 * `LockService.currentSignal()`); Node's AbortController is one of the costlier objects to create and collect, so
 * building one per hold cost the lock's HTTP route about a tenth of its CPU. Aborted before anyone asked, the signal
 * is made already aborted, with the same reason.
 */
export class LazyAbort {
  private controller?: AbortController;
  private reason?: unknown;
  private done = false;

  get aborted(): boolean {
    return this.done;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts once; later calls are ignored, as AbortController's are. */
  abort(reason: unknown): void {
    if (this.done) return;
    this.done = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
