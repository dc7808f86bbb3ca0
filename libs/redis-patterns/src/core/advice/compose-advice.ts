import type { ExecutionContext } from '@nestjs/common';
import { toContextError } from './context-errors';
import { httpCallOf, requestOf } from './handler-call';
import { type AdvisedMethod, type MethodAdvice, type MethodInvocation, PROCEED } from './method-advice.interface';

/** Runs one decorated method of one instance, as a direct call: its advice chain around the original method. */
export type BoundMethod = (instance: object, args: unknown[]) => Promise<unknown>;

/** Runs the advice chain of a handler around the rest of Nest's call (`proceed`). */
export type HandlerChain = (context: ExecutionContext, proceed: () => Promise<unknown>) => Promise<unknown>;

type Innermost = (invocation: MethodInvocation) => Promise<unknown>;

/**
 * Folds the advices into one function once, so a call allocates only its invocation object; pass-through advices
 * ({@link PROCEED}) are left out. Undefined when nothing is left.
 */
function fold(advices: MethodAdvice[], innermost: Innermost): Innermost | undefined {
  let run = innermost;
  let any = false;
  for (let i = advices.length - 1; i >= 0; i--) {
    const advice = advices[i];
    if (advice === PROCEED) continue;
    any = true;
    const next = run;
    run = (invocation) => advice(invocation, () => next(invocation));
  }
  return any ? run : undefined;
}

/** The chain of a method's wrapper: a direct call of the method. */
export function composeMethod(advices: MethodAdvice[], original: (...args: unknown[]) => unknown, method: AdvisedMethod): BoundMethod {
  const chain =
    fold(advices, (invocation) => {
      try {
        return Promise.resolve(original.apply(invocation.instance, invocation.args));
      } catch (error) {
        return Promise.reject(error);
      }
    }) ?? ((invocation) => Promise.resolve(original.apply(invocation.instance, invocation.args)));
  return (instance, args) => chain({ instance, args, method });
}

/**
 * The chain of a handler, run by the module's interceptor. A library error that knows its answer becomes that answer
 * in the call's transport here (see context-errors.ts).
 */
export function composeHandler(
  advices: MethodAdvice[],
  method: AdvisedMethod,
  reportDrop: (message: string) => void,
): HandlerChain | undefined {
  const chain = fold(advices, (invocation) => (invocation as HandlerInvocation).proceed());
  if (!chain) return undefined;
  return (context, proceed) => {
    const http = httpCallOf(context);
    const invocation: HandlerInvocation = { args: [requestOf(context), context], method, http, context, proceed };
    return chain(invocation).catch((error: unknown) => Promise.reject(toContextError(error, context, http, reportDrop)));
  };
}

interface HandlerInvocation extends MethodInvocation {
  readonly proceed: () => Promise<unknown>;
}
