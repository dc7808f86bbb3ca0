// Adapted from nestjs/throttler (MIT, see LICENSE in test/compliance/nestjs-throttler) test/app/app.service.ts: unchanged.
import { Injectable } from '@nestjs/common';

@Injectable()
export class AppService {
  success() {
    return { success: true };
  }

  ignored() {
    return { ignored: true };
  }
}
