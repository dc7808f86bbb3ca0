// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) test/app/controllers/limit.controller.ts: imports from the package.
import { Controller, Get } from '@nestjs/common';
import { Throttle, seconds } from '@nestjs/throttler';
import { AppService } from '../app.service';

@Throttle({ default: { limit: 2, ttl: seconds(10), blockDuration: seconds(5) } })
@Controller('limit')
export class LimitController {
  constructor(private readonly appService: AppService) {}
  @Get()
  getThrottled() {
    return this.appService.success();
  }

  @Throttle({ default: { limit: 5, ttl: seconds(10), blockDuration: seconds(15) } })
  @Get('higher')
  getHigher() {
    return this.appService.success();
  }
}
