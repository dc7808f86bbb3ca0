import { ScopedContext } from '../context/scoped-context';
import { isControllerClass } from './discover-methods';

/**
 * Tells a decorated method's wrapper whether Nest is calling it as a handler, in which case the pattern's interceptor
 * or guard has already applied the behaviour and the wrapper only runs the method.
 *
 * - A controller's methods are Nest's to call (routes, message and event patterns): known from the class, at no cost
 *   per call. A controller method called directly runs without the behaviour; the behaviour of a method shared with
 *   other code belongs on a provider.
 * - A gateway or a resolver is a provider like any other, whose handlers Nest calls through the same wrapper as
 *   everyone else: the interceptor marks the one call it hands to Nest ({@link claimFor}), in a context that lives
 *   only while that call runs, and the wrapper takes the mark ({@link takenBy}). No metadata of another package is
 *   read to tell a handler from a method.
 */
const calls = new ScopedContext<Claim>();

interface Claim {
  readonly handler: Function;
  taken: boolean;
}

const controllers = new WeakMap<Function, boolean>();

/** Whether Nest calls every method of `instance`'s class itself (a controller). */
export function isControllerInstance(instance: object): boolean {
  const classRef = instance.constructor;
  let known = controllers.get(classRef);
  if (known === undefined) controllers.set(classRef, (known = isControllerClass(classRef)));
  return known;
}

/** Runs `work` (the rest of Nest's call of `handler`) so that the wrapper of `handler` knows Nest is calling it. */
export function claimFor<R>(handler: Function, work: () => Promise<R>): Promise<R> {
  return calls.run({ handler, taken: false }, work);
}

/**
 * True once, inside the work {@link claimFor} ran for `wrapper`: the call Nest makes. A call the method then makes of
 * itself (recursion) is not Nest's and gets the behaviour.
 */
export function takenBy(wrapper: Function): boolean {
  const claim = calls.get();
  if (!claim || claim.handler !== wrapper || claim.taken) return false;
  claim.taken = true;
  return true;
}
