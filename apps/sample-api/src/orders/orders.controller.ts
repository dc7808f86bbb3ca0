import { Controller, Get, HttpCode, Param, ParseIntPipe, Post } from '@nestjs/common';
import { Idempotent } from 'nestjs-redis-patterns';
import type { Order } from './order.repository';
import { OrdersService } from './orders.service';
import { type ShippingQuote, ShippingPartner } from './shipping-partner';

@Controller('orders')
export class OrdersController {
  constructor(
    private readonly orders: OrdersService,
    private readonly shipping: ShippingPartner,
  ) {}

  /**
   * The lock is taken by OrdersService.pay (@WithLock); the module's HTTP edge turns its LockNotAcquiredError into
   * 409 with Retry-After. Paying a paid order answers 200 with `alreadyPaid: true`.
   */
  // With an Idempotency-Key header, a retried payment (a timeout, a double click) replays the first answer instead of
  // running again; the same key with another order is 422. Without the header the route behaves as before.
  @Post(':id/pay')
  @HttpCode(200)
  @Idempotent()
  async pay(@Param('id', ParseIntPipe) id: number): Promise<Order & { alreadyPaid: boolean }> {
    return this.orders.pay(id);
  }

  /** A quote from the shipping partner, who accepts two calls at once across every instance (409 when saturated). */
  @Get(':id/shipping-quote')
  shippingQuote(@Param('id', ParseIntPipe) id: number): Promise<ShippingQuote> {
    return this.shipping.quote(id);
  }
}
