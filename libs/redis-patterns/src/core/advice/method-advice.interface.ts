import type { ExecutionContext, Type } from '@nestjs/common';
import type { HandlerKind, HttpCall } from './handler-call';

/** The decorated method an advice was prepared for. */
export interface AdvisedMethod {
  readonly classRef: Type<unknown>;
  readonly className: string;
  readonly methodName: string;
  /** True on a controller class (HTTP routes and microservice patterns). */
  readonly isController: boolean;
  /**
   * The transport of the handler calls this advice serves, through the module's interceptor (undefined: the advice of
   * the method's wrapper, for calls that are not Nest's).
   */
  readonly handlerKind?: HandlerKind;
}

/**
 * One call of a decorated method. `args` are what key functions receive: the method's arguments on a direct call,
 * `(request, context)` on a handler call (see handler-call.ts).
 */
export interface MethodInvocation {
  /** The instance the method runs on (undefined on a handler call, where Nest runs it). */
  readonly instance?: object;
  readonly args: unknown[];
  readonly method: AdvisedMethod;
  /** The HTTP request being served, on an HTTP handler call. */
  readonly http?: HttpCall;
  /**
   * Nest's execution context when Nest called the method as a handler, in any transport (`getType()`: `http`,
   * `rpc`, `ws`, `graphql`); undefined on a direct call (`service.method(...)`).
   */
  readonly context?: ExecutionContext;
}

/** The behaviour of one decorator around one method: call `proceed` to run the rest of the chain and the method. */
export type MethodAdvice = (invocation: MethodInvocation, proceed: () => Promise<unknown>) => Promise<unknown>;

/**
 * An advice that only proceeds. Return this very function from `prepare` and the chain leaves it out, so it costs
 * nothing per call.
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
  /**
   * The decorator's behaviour on a handler Nest calls is a guard's (`@RateLimit`): on a controller, where the
   * wrapper never runs the advice, a method with only such decorators needs no interceptor.
   */
  readonly guardOnHandlers?: boolean;
}
