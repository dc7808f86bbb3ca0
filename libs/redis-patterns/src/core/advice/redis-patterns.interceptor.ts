import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, Optional } from '@nestjs/common';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { RedisPatternsNotBoundError } from '../../errors/redis-patterns-not-bound.error';
import { MethodAdviceExplorer } from './method-advice.explorer';
import { claimFor, isControllerInstance } from './nest-handler-calls';

const UNREACHABLE_MODULE =
  'RedisPatternsModule is not imported in this application (add RedisPatternsModule.forRoot(...) to a module), ' +
  'or it is registered with isGlobal: false and not imported by the module that declares this class';

/** Where a decorator attached each interceptor class of {@link interceptorFor}. */
const sites = new WeakMap<Function, { readonly className: string; readonly methodName: string }>();

/**
 * The interceptor every redis-patterns method decorator puts on its method: on a handler Nest calls (an HTTP route,
 * a message or event pattern, a gateway message, a resolver), it runs the decorators' behaviour around the rest of
 * Nest's call, in the order of the application's interceptors, with Nest's ExecutionContext (key functions get
 * `(request, context)`; see docs/decorator-mechanism.md). `@RateLimit` decides in its guard, before this.
 *
 * Nest creates it in the module that declares the decorated class; without RedisPatternsModule there it cannot be
 * created, and the application fails at startup.
 */
@Injectable()
export class RedisPatternsInterceptor implements NestInterceptor {
  // Optional so that, without the module's providers, the error names the decorated class and method instead of
  // Nest's generic "can't resolve dependencies of the RedisPatternsInterceptor".
  constructor(@Optional() private readonly explorer?: MethodAdviceExplorer) {
    if (!explorer) {
      const site = sites.get(new.target);
      throw new RedisPatternsNotBoundError(site?.className ?? RedisPatternsInterceptor.name, site?.methodName, UNREACHABLE_MODULE);
    }
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handler = this.explorer!.handlerChain(context);
    const proceed = (): Promise<unknown> => lastValueFrom(next.handle(), { defaultValue: undefined });
    const run = handler ? () => handler(context, proceed) : proceed;
    // A controller's handlers are only ever Nest's to call; anything else's wrapper must be told this call is Nest's.
    if (isControllerInstance(context.getClass().prototype as object)) return handler ? from(run()) : next.handle();
    return from(claimFor(context.getHandler(), run));
  }
}

/**
 * The interceptor class a decorator attaches to one method: `RedisPatternsInterceptor` itself, except that an
 * application without the module's providers fails startup naming that method.
 */
export function interceptorFor(className: string, methodName: string): typeof RedisPatternsInterceptor {
  const interceptor = class extends RedisPatternsInterceptor {};
  sites.set(interceptor, { className, methodName });
  Object.defineProperty(interceptor, 'name', { value: RedisPatternsInterceptor.name });
  return interceptor;
}

/** Whether `enhancer` (an entry of a method's interceptors) is the module's interceptor. */
export function isRedisPatternsInterceptor(enhancer: unknown): boolean {
  return (
    typeof enhancer === 'function' && (enhancer === RedisPatternsInterceptor || enhancer.prototype instanceof RedisPatternsInterceptor)
  );
}
