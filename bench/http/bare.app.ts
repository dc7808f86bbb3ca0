import { Controller, Get, Module } from '@nestjs/common';
import { CACHED_VALUE } from '../suites/payload';

/** The limit: a Nest (Express) endpoint returning the same JSON document, with nothing else in the request path. */
@Controller()
class BareController {
  @Get('bare')
  bare() {
    return CACHED_VALUE;
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

export function bareModule(): unknown {
  return BareModule;
}
