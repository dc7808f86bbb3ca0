import { randomUUID } from 'node:crypto';
import { Body, Controller, Headers, HttpException, type INestApplication, Injectable, Post, Res, type Type } from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { Idempotent, RedisPatternsModule, type RedisPatternsModuleOptions } from 'nestjs-redis-patterns';

/** How often each handler ran, per idempotency key, across every application of the process. */
export const runs = new Map<string, number>();

function count(name: string): number {
  const n = (runs.get(name) ?? 0) + 1;
  runs.set(name, n);
  return n;
}

export function runsOf(name: string): number {
  return runs.get(name) ?? 0;
}

/** Gates of the `long` handler, per key: it runs until the test opens its gate. */
export const gates = new Map<string, Promise<void>>();

/** Simulated work: long enough for duplicates sent at once to arrive while it runs. */
function work(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// `status()` and `header()` exist on both an Express `res` and a Fastify `reply`.
type Reply = { status(code: number): unknown; header(name: string, value: string): unknown };

@Controller('idem')
export class PaymentsController {
  /** The main case: waits for a running duplicate; sets its own status and headers (one of them a cookie). */
  @Post('pay')
  @Idempotent({ waitMs: 10_000 })
  async pay(
    @Body() body: { amount: number },
    @Headers('idempotency-key') key: string,
    @Res({ passthrough: true }) res: Reply,
  ): Promise<{ paid: number; run: number; nonce: string }> {
    const run = count(`pay:${key}`);
    await work(200);
    res.status(202);
    res.header('Location', `/payments/${key}`);
    res.header('Set-Cookie', 'session=first-caller');
    res.header('X-Trace', 'not-replayed');
    return { paid: body.amount, run, nonce: randomUUID() };
  }

  @Post('pay-reject')
  @Idempotent({ onConcurrent: 'reject' })
  async payOrReject(@Body() body: { amount: number }, @Headers('idempotency-key') key: string): Promise<{ paid: number; nonce: string }> {
    count(`reject:${key}`);
    await work(400);
    return { paid: body.amount, nonce: randomUUID() };
  }

  /** Runs until the test opens its gate: longer than the in-progress TTL, kept alive by the claim's heartbeat. */
  @Post('long')
  @Idempotent({ onConcurrent: 'reject' })
  async long(@Headers('idempotency-key') key: string): Promise<{ run: number }> {
    const run = count(`long:${key}`);
    await gates.get(key);
    return { run };
  }

  /** Fails on its first run per key, succeeds after. */
  @Post('flaky')
  @Idempotent()
  flaky(@Headers('idempotency-key') key: string): { ok: true; run: number } {
    const run = count(`flaky:${key}`);
    if (run === 1) throw new Error('downstream timeout');
    return { ok: true, run };
  }

  @Post('declined')
  @Idempotent({ storeFailures: true })
  declined(@Headers('idempotency-key') key: string): never {
    const run = count(`declined:${key}`);
    throw new HttpException({ statusCode: 402, message: 'card declined', run }, 402);
  }

  @Post('required')
  @Idempotent({ required: true })
  required(@Headers('idempotency-key') key: string): { run: number } {
    return { run: count(`required:${key}`) };
  }

  @Post('per-user')
  @Idempotent({ identity: (req: { headers: Record<string, string> }) => req.headers['x-user'] })
  perUser(
    @Headers('x-user') user: string,
    @Headers('idempotency-key') key: string,
    @Body() body: unknown,
  ): { user: string; body: unknown; run: number } {
    return { user, body, run: count(`per-user:${user}:${key}`) };
  }
}

export interface LedgerEntry {
  id: string;
  amount: number;
}

@Injectable()
export class Ledger {
  /** A provider method: the key is a function of the arguments. */
  @Idempotent({ key: (account: string, entry: LedgerEntry) => `${account}:${entry.id}` })
  async credit(account: string, entry: LedgerEntry): Promise<{ account: string; amount: number; at: Date; cents: bigint; nonce: string }> {
    count(`credit:${account}:${entry.id}`);
    await work(50);
    return { account, amount: entry.amount, at: new Date(1_700_000_000_000), cents: BigInt(entry.amount) * 100n, nonce: randomUUID() };
  }
}

/** A Nest application with RedisPatternsModule, the given classes, listening on a free loopback port. */
export async function startIdempotencyApp(
  options: RedisPatternsModuleOptions,
  classes: { controllers?: Type<unknown>[]; providers?: Type<unknown>[] } = {},
  adapter?: AbstractHttpAdapter,
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [RedisPatternsModule.forRoot(options)],
    controllers: classes.controllers ?? [],
    providers: classes.providers ?? [],
  }).compile();
  const app = adapter ? moduleRef.createNestApplication(adapter, { logger: false }) : moduleRef.createNestApplication({ logger: false });
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    // A failed start still opened connections and registered the module's runtime: close them.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
