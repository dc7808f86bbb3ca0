/**
 * A held lock is no longer ours: it expired, was taken by another holder, was deleted, or could not be extended
 * before its validity ran out. `using()` aborts its signal with this error as the reason; `Lock.extend` rejects
 * with it.
 */
export class LockLostError extends Error {
  constructor(
    readonly resource: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Lock "${resource}" was lost: ${detail}.`, options);
  }

  override get name(): string {
    return this.constructor.name;
  }
}
