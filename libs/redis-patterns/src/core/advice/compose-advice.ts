import { isHttpMappableError } from '../../errors/http-mappable';
import type { BoundMethod } from './advice-bindings';
import { toContextError } from './context-errors';
import type { HandlerCall } from './handler-call';
import { type AdvisedMethod, type MethodAdvice, type MethodInvocation, PROCEED } from './method-advice.interface';

/**
 * Folds the advices into one function once, at bootstrap, so a call allocates only its invocation object.
 * Pass-through advices ({@link PROCEED}) are left out. On a handler call, a library error that knows its answer
 * becomes that answer in the call's transport here (see context-errors.ts), so a decorated handler needs nothing
 * else in the request path; on an event pattern, which has no caller to answer, it is reported through
 * `onDroppedEvent` and the event is dropped.
 */
export function composeAdvice(
  advices: MethodAdvice[],
  original: (...args: unknown[]) => unknown,
  method: AdvisedMethod,
  onDroppedEvent: (error: Error, method: AdvisedMethod) => void,
): BoundMethod {
  let run = (invocation: MethodInvocation): Promise<unknown> => {
    try {
      return Promise.resolve(original.apply(invocation.instance, invocation.args));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  for (let i = advices.length - 1; i >= 0; i--) {
    const advice = advices[i];
    if (advice === PROCEED) continue;
    const next = run;
    run = (invocation) => advice(invocation, () => next(invocation));
  }
  const chain = run;
  const answer = (error: unknown, call: HandlerCall): unknown => {
    if (call.kind === 'rpc-event' && isHttpMappableError(error)) {
      onDroppedEvent(error, method);
      return undefined;
    }
    return Promise.reject(toContextError(error, call.context, call.http));
  };
  return (instance, args, call) => {
    if (!call) return chain({ instance, args, method, http: undefined, context: undefined });
    return chain({ instance, args, method, http: call.http, context: call.context }).catch((error: unknown) => answer(error, call));
  };
}
