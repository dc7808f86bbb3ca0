// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) test/app/controllers/default.controller.ts: unchanged.
import { Controller, Get } from '@nestjs/common';
import { AppService } from '../app.service';

@Controller('default')
export class DefaultController {
  constructor(private readonly appService: AppService) {}
  @Get()
  getDefault() {
    return this.appService.success();
  }
}
