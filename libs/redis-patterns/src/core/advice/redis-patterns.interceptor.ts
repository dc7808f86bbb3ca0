import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, Optional } from '@nestjs/common';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { RedisPatternsNotBoundError } from '../../errors/redis-patterns-not-bound.error';
import { MethodAdviceExplorer } from './method-advice.explorer';
import { claimFor, isControllerInstance } from './nest-handler-calls';

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
  constructor(@Optional() private readonly explorer?: MethodAdviceExplorer) {
    if (!explorer) throw new RedisPatternsNotBoundError(RedisPatternsInterceptor.name, undefined);
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
