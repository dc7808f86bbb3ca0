import { Body, Controller, Injectable, Module, Post } from '@nestjs/common';
import { Idempotent, IdempotencyService, RedisPatternsModule } from 'nestjs-redis-patterns';

export interface CreatePaymentDto {
  amount: number;
}

export interface LedgerEntry {
  id: string;
  amount: number;
}

/** Stands in for your payment provider; `charges` counts the payments it really made. */
@Injectable()
export class PaymentsService {
  charges = 0;

  async charge(payment: CreatePaymentDto): Promise<{ paymentId: number; amount: number }> {
    this.charges++;
    return { paymentId: this.charges, amount: payment.amount };
  }
}

@Controller('payments')
export class PaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  // The key is the Idempotency-Key header; keys are scoped per handler and, here, per authenticated user (`req.user`,
  // set by your authentication: a request with a key and no user is refused with 400, the handler does not run).
  @Post()
  @Idempotent({ required: true, identity: (req) => req.user?.id })
  create(@Body() payment: CreatePaymentDto) {
    return this.payments.charge(payment); // runs once per key; retries get the same status, headers and body
  }
}

@Injectable()
export class LedgerService {
  /** Stands in for your ledger table. */
  readonly ledger = new Map<string, LedgerEntry>();
  readonly fulfilled: string[] = [];

  constructor(private readonly idempotency: IdempotencyService) {}

  // On a provider method the key is a function of the arguments (required there).
  @Idempotent({ key: (entry: LedgerEntry) => `credit:${entry.id}`, ttlMs: 3_600_000 })
  async credit(entry: LedgerEntry): Promise<number> {
    this.ledger.set(entry.id, entry);
    return this.ledger.size;
  }

  // Without a decorator: around any work, e.g. a stream entry delivered at least once.
  onPaymentEvent(event: { id: string; order: string }) {
    return this.idempotency.execute(event.id, () => this.fulfil(event.order), { scope: 'fulfilment' });
  }

  private async fulfil(order: string): Promise<string> {
    this.fulfilled.push(order);
    return `shipped ${order}`;
  }
}

@Module({
  imports: [RedisPatternsModule.forRoot({ connection: process.env.REDIS_URL })],
  controllers: [PaymentsController],
  providers: [PaymentsService, LedgerService],
})
export class AppModule {}
