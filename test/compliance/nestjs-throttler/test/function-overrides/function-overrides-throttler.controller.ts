// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) test/function-overrides/function-overrides-throttler.controller.ts: imports from the package.
import { Controller, Get } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';

@Controller()
export class FunctionOverridesThrottlerController {
  @SkipThrottle({ custom: true })
  @Get()
  simpleRoute() {
    return { success: true };
  }

  @SkipThrottle({ custom: true })
  @Get('1')
  simpleRouteOne() {
    return { success: true };
  }

  @SkipThrottle({ default: true })
  @Get('custom')
  simpleRouteTwo() {
    return { success: true };
  }

  @SkipThrottle({ default: true })
  @Get('custom/1')
  simpleRouteThrww() {
    return { success: true };
  }
}
