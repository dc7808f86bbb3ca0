import { Injectable } from '@nestjs/common';
import { WithPermit } from 'nestjs-redis-patterns';
import { simulatedLatency } from '../common/simulated-latency';

export interface ShippingQuote {
  orderId: number;
  priceCents: number;
}

/** How many calls the (simulated) shipping partner accepts at once, from all instances together. */
export const SHIPPING_PARTNER_PERMITS = 2;

/**
 * A partner API with a concurrency limit: at most two quotes in flight across every instance (a semaphore), each
 * waiting up to a second for a permit, then 409 with Retry-After.
 */
@Injectable()
export class ShippingPartner {
  /** Calls in flight in this instance (for tests and the status page). */
  inFlight = 0;
  peakInFlight = 0;

  @WithPermit({ resource: 'shipping-partner', permits: SHIPPING_PARTNER_PERMITS, ttlMs: 5_000, waitMs: 1_000 })
  async quote(orderId: number): Promise<ShippingQuote> {
    this.peakInFlight = Math.max(this.peakInFlight, ++this.inFlight);
    try {
      await simulatedLatency();
      return { orderId, priceCents: 499 + (orderId % 7) * 100 };
    } finally {
      this.inFlight--;
    }
  }
}
