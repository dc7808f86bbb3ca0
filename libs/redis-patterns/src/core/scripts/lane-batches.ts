import type { Redis } from 'ioredis';
import { batchOf, crossSlotFormOf } from './batch-form';
import { NOT_SERVED_HERE } from './command-wire';
import { type ReplyWindow, settleEach, type WaitingGroup } from './coalescing-queue';
import type { NodeLane } from './node-lanes';
import type { RedisScript, ScriptText } from './redis-script';
import { RedisUnavailableError } from '../../errors/redis-unavailable.error';

type RedisArg = string | number | Buffer;

/** What sending a cluster lane's batch needs of the executor: its one script path and its failure classification. */
export interface LaneSender {
  evalsha<TReply>(
    script: ScriptText,
    keys: readonly string[],
    args: readonly RedisArg[],
    queue: ReplyWindow,
    target?: Redis,
    calls?: number,
  ): Promise<TReply>;
  failed(command: string, error: unknown): unknown;
  /** The servers cannot compile the cross-slot form (before Redis 7): calls go alone from now on. */
  crossSlotRefused(): void;
}

/**
 * Sends the calls waiting on one master as one EVALSHA of the cross-slot batch form (see batch-form.ts).
 *
 * A call the node does not serve (its slot moved, or is moving) failed before it wrote anything and goes again alone,
 * through the cluster client and its redirections; so does every call of a batch the node refused as a whole
 * (READONLY after a failover, CLUSTERDOWN, LOADING) or that could not be sent (its connection was closing): it did
 * not run. A batch without an answer (timeout, connection lost after it was written) may have run: its calls fail
 * with it.
 */
export function sendLaneGroup(sender: LaneSender, lane: NodeLane, { kind: script, calls }: WaitingGroup<RedisScript<unknown>>): void {
  const alone = (call: (typeof calls)[number]) =>
    sender.evalsha(script.single, call.keys, call.args, lane.queue).then(call.resolve, call.reject);
  if (calls.length === 1) return void alone(calls[0]);
  const batch = batchOf(script, calls);
  const args: RedisArg[] = [batch.keys.length, ...batch.keys, ...batch.args];
  sender.evalsha<unknown[]>(crossSlotFormOf(script), [], args, lane.queue, lane.client, calls.length).then(
    (replies) =>
      settleEach(script.name, calls, replies, (call, error) => {
        if (NOT_SERVED_HERE.test(error.message)) void alone(call);
        else call.reject(sender.failed('evalsha', error));
      }),
    (error: unknown) => {
      if (error instanceof RedisUnavailableError && error.mayHaveRun) return calls.forEach((call) => call.reject(error));
      if (error instanceof Error && /compiling script|shebang/i.test(error.message)) sender.crossSlotRefused();
      for (const call of calls) void alone(call);
    },
  );
}
