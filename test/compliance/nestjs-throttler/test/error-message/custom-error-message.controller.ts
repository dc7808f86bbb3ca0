// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) test/error-message/custom-error-message.controller.ts: imports from the package.
import { Controller, Get } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';

@Controller()
export class CustomErrorMessageController {
  @SkipThrottle({ other: true })
  @Get('default')
  defaultRoute() {
    return { success: true };
  }

  @SkipThrottle({ default: true })
  @Get('other')
  otherRoute() {
    return { success: true };
  }
}
