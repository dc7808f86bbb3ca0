import type { Type } from '@nestjs/common';
import type { HttpCall } from './http-call';

/** The decorated method an advice was prepared for. */
export interface AdvisedMethod {
  readonly classRef: Type<unknown>;
  readonly className: string;
  readonly methodName: string;
  /** True on a controller: the advice then runs inside the HTTP request and may set response headers. */
  readonly isController: boolean;
}

/** One call of a decorated method, with its resolved arguments (after Nest's pipes, on a controller). */
export interface MethodInvocation {
  readonly instance: object;
  readonly args: unknown[];
  readonly method: AdvisedMethod;
  /** The HTTP request being served, when the method is a controller handler called by Nest's router. */
  readonly http?: HttpCall;
}

/** The behaviour of one decorator around one method: call `proceed` to run the rest of the chain and the method. */
export type MethodAdvice = (invocation: MethodInvocation, proceed: () => Promise<unknown>) => Promise<unknown>;

/**
 * An advice that only proceeds (e.g. `@RateLimit` on a controller, where a guard does the work). Return this very
 * function from `prepare` and the chain leaves it out, so it costs nothing per call.
 */
export const PROCEED: MethodAdvice = (_invocation, proceed) => proceed();

/**
 * A provider that turns a decorator's options into an advice, once per decorated method at bootstrap. Invalid
 * options throw here, so they fail application startup rather than the first call.
 */
export interface MethodAdvisor<TOptions> {
  prepare(options: TOptions, method: AdvisedMethod): MethodAdvice;
}

/** What a redis-patterns method decorator records on the method. */
export interface AdviceDeclaration<TOptions = unknown> {
  readonly advisor: Type<MethodAdvisor<TOptions>>;
  readonly options: TOptions;
}
