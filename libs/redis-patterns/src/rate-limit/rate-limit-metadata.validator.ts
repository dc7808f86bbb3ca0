import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { RATE_LIMIT_METADATA } from './rate-limit.constants';
import { type RateLimitMetadata, resolveLimiter } from './resolve-limiter';

/**
 * Validates class-level `@RateLimit` at bootstrap, like the advisor does for methods, so a bad class default fails
 * startup instead of the first request.
 */
@Injectable()
export class RateLimitMetadataValidator implements OnModuleInit {
  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    // Controllers, and providers for gateways and resolvers.
    for (const wrapper of [...this.discovery.getControllers(), ...this.discovery.getProviders()]) {
      const classRef = wrapper.metatype as Function | undefined;
      if (typeof classRef !== 'function' || wrapper.inject) continue;
      const metadata = Reflect.getMetadata(RATE_LIMIT_METADATA, classRef) as RateLimitMetadata | undefined;
      if (metadata) resolveLimiter(metadata, classRef.name, classRef.name);
    }
  }
}
