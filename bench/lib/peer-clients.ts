import Redis from 'ioredis';
import type { SuiteContext } from '../suites/suite-context';

/** An ioredis client of a peer, plain or with auto-pipelining (the peer's two configurations), closed in teardown. */
export function peerIoredis(ctx: SuiteContext, autoPipelining: boolean): { get(): Redis; open(): void; close(): void } {
  let client: Redis | undefined;
  return {
    get: () => client!,
    open: () => {
      client = new Redis({ port: ctx.redis.port, host: '127.0.0.1', enableAutoPipelining: autoPipelining });
    },
    close: () => client?.disconnect(),
  };
}

/** ` (auto-pipelining)` for the auto-pipelined row of a peer. */
export const apSuffix = (autoPipelining: boolean) => (autoPipelining ? ' (auto-pipelining)' : '');
