/**
 * Whether `value` is a promise or another thenable. Not `instanceof Promise`: a promise made in another realm (Node's
 * own modules under a test runner's VM context, a user's promise library) is not an instance of this realm's Promise,
 * and would be taken for a plain value.
 */
export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
