import { Injectable } from '@nestjs/common';
import { LockService, WithPermit } from 'nestjs-redis-patterns';

@Injectable()
export class PartnerClient {
  constructor(private readonly locks: LockService) {}

  // At most 3 calls to the partner's API at once, across every instance; 409 when none frees up within 2 s.
  @WithPermit({ resource: 'partner-api', permits: 3, ttlMs: 10_000, waitMs: 2_000 })
  async quote(orderId: string): Promise<{ orderId: string; price: number }> {
    return { orderId, price: 42 };
  }

  // Many readers or one writer; a waiting writer keeps new readers out.
  reprice(catalog: string): Promise<void> {
    return this.locks.readWrite(`catalog:${catalog}`).write(async () => {
      /* rewrite the catalog's prices */
    });
  }
}
