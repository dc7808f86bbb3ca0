import { Body, Controller, Post } from '@nestjs/common';
import { Idempotent } from 'nestjs-redis-patterns';

class CreatePaymentDto {
  orderId!: string;
  amountCents!: number;
}

interface AuthenticatedRequest {
  user?: { id: string };
}

// #region usage
@Controller('payments')
export class PaymentsController {
  // A retry with the same Idempotency-Key replays the first answer (Idempotent-Replayed: true).
  @Post()
  @Idempotent({ required: true, identity: (req: AuthenticatedRequest) => req.user?.id }) // no user: 400
  create(@Body() payment: CreatePaymentDto): { paymentId: string } {
    return { paymentId: `pay-${payment.orderId}-${payment.amountCents}` };
  }
}
// #endregion usage
