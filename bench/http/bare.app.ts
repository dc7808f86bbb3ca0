import { type CallHandler, Controller, Get, Injectable, Module, type NestInterceptor, UseInterceptors } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { CACHED_VALUE } from '../suites/payload';
import { HTTP_ROUTES, routeOf } from './routes';

/** A Nest interceptor that does nothing: the floor of any decorator that is an interceptor. */
@Injectable()
class PassThroughInterceptor implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler): Observable<unknown> {
    return next.handle();
  }
}

/**
 * The limit: a Nest endpoint returning the same JSON document, with nothing else in the request path; and the same
 * endpoint behind a pass-through interceptor.
 */
@Controller()
class BareController {
  @Get(routeOf(HTTP_ROUTES.bare))
  bare() {
    return CACHED_VALUE;
  }

  @Get(routeOf(HTTP_ROUTES.bareIntercepted))
  @UseInterceptors(PassThroughInterceptor)
  bareIntercepted() {
    return CACHED_VALUE;
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

export function bareModule(): unknown {
  return BareModule;
}
