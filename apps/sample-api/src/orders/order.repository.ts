import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { simulatedLatency } from '../common/simulated-latency';

export interface Order {
  id: number;
  amountCents: number;
  status: 'pending' | 'paid';
  paidAt?: string;
  /** The fencing token of the lock under which the order was last written. */
  fencingToken?: number;
}

/**
 * The order table of the sample (in-process, simulated latency, seeded with orders 1–120). Writes are fenced: a
 * write carrying a fencing token lower than the last one accepted is refused, so a lock holder that paused past
 * its lock's TTL cannot overwrite the work of the holder that came after it. This check is what makes a lock
 * safe; a real database does it with a conditional UPDATE (`… WHERE fencing_token < $token`).
 */
@Injectable()
export class OrderRepository {
  private readonly rows = new Map<number, Order>();

  constructor() {
    for (let id = 1; id <= 120; id++) this.rows.set(id, { id, amountCents: 1000 + id * 10, status: 'pending' });
  }

  async findById(id: number): Promise<Order> {
    await simulatedLatency();
    const row = this.rows.get(id);
    if (!row) throw new NotFoundException(`Order ${id} does not exist`);
    return { ...row };
  }

  async markPaid(id: number, fencingToken: number): Promise<Order> {
    await simulatedLatency();
    const row = this.rows.get(id);
    if (!row) throw new NotFoundException(`Order ${id} does not exist`);
    if (row.fencingToken !== undefined && fencingToken <= row.fencingToken) {
      throw new ConflictException(`Stale fencing token ${fencingToken} for order ${id} (last accepted ${row.fencingToken})`);
    }
    const updated: Order = { ...row, status: 'paid', paidAt: new Date().toISOString(), fencingToken };
    this.rows.set(id, updated);
    return { ...updated };
  }
}
