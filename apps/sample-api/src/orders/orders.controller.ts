import { Controller, HttpCode, Param, ParseIntPipe, Post } from '@nestjs/common';
import type { Order } from './order.repository';
import { OrdersService } from './orders.service';

@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  /**
   * The lock is taken by OrdersService.pay (@WithLock); the module's HTTP edge turns its LockNotAcquiredError into
   * 409 with Retry-After. Paying a paid order answers 200 with `alreadyPaid: true`.
   */
  @Post(':id/pay')
  @HttpCode(200)
  async pay(@Param('id', ParseIntPipe) id: number): Promise<Order & { alreadyPaid: boolean }> {
    return this.orders.pay(id);
  }
}
