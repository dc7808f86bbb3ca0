import { Controller, Get, Module } from '@nestjs/common';
import { CACHED_VALUE } from '../suites/payload';
import { HTTP_ROUTES, routeOf } from './routes';

/** The limit: a Nest endpoint returning the same JSON document, with nothing else in the request path. */
@Controller()
class BareController {
  @Get(routeOf(HTTP_ROUTES.bare))
  bare() {
    return CACHED_VALUE;
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

export function bareModule(): unknown {
  return BareModule;
}
