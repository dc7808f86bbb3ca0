import type { Redis } from 'ioredis';
import { batchFormOf, batchOf, crossSlotFormOf } from './batch-form';
import { NOT_SERVED_HERE } from './command-wire';
import { type ReplyWindow, settleEach, type WaitingGroup } from './coalescing-queue';
import type { NodeLane } from './node-lanes';
import type { RedisScript, ScriptText } from './redis-script';
import { RedisUnavailableError } from '../../errors/redis-unavailable.error';

type RedisArg = string | number | Buffer;

/**
 * What sending a group of waiting calls needs of the executor: its one script path, its reads and its failure
 * classification. Groups leave here (a lone call alone, a larger group as one shared command) so that the executor
 * holds only the choice between writing a call at once and letting it wait.
 */
export interface GroupSender {
  evalsha<TReply>(
    script: ScriptText,
    keys: readonly string[],
    args: readonly RedisArg[],
    queue?: ReplyWindow,
    target?: Redis,
    calls?: number,
    node?: string,
  ): Promise<TReply>;
  /** A GET on its own. */
  get(key: string): Promise<unknown>;
  /** One MGET, counted in the window as the `keys.length` reads it carries (the window counts calls, not commands). */
  mget(keys: readonly string[]): Promise<unknown[]>;
  failed(command: string, error: unknown): unknown;
  /** The servers cannot compile the cross-slot form (before Redis 7): calls go alone from now on. */
  crossSlotRefused(): void;
}

/** What a single server's waiting group shares: one script's EVALSHA, or one MGET. */
export type ServerGroupKind = RedisScript<unknown> | 'read';

/**
 * Sends the calls waiting on a single server (or a Sentinel group's master): a group of one alone, a larger one as
 * one EVALSHA of the script's batch form or one MGET, each call settled by its own entry of the reply.
 */
export function sendServerGroup(sender: GroupSender, { kind, calls }: WaitingGroup<ServerGroupKind>): void {
  if (calls.length === 1) {
    const [call] = calls;
    const reply = kind === 'read' ? sender.get(call.keys[0]) : sender.evalsha(kind.single, call.keys, call.args);
    reply.then(call.resolve, call.reject);
    return;
  }
  let replies: Promise<unknown[]>;
  if (kind === 'read') {
    replies = sender.mget(calls.map((call) => call.keys[0]));
  } else {
    const batch = batchOf(kind, calls);
    replies = sender.evalsha<unknown[]>(batchFormOf(kind), batch.keys, batch.args, undefined, undefined, calls.length);
  }
  const [name, command] = kind === 'read' ? ['MGET', 'mget'] : [`Script ${kind.name}`, 'evalsha'];
  replies.then(
    (values) => settleEach(name, calls, values, (call, error) => call.reject(sender.failed(command, error))),
    (error: unknown) => {
      for (const call of calls) call.reject(error);
    },
  );
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
export function sendLaneGroup(sender: GroupSender, lane: NodeLane, { kind: script, calls }: WaitingGroup<RedisScript<unknown>>): void {
  const alone = (call: (typeof calls)[number]) =>
    sender.evalsha(script.single, call.keys, call.args, lane.queue, undefined, 1, lane.node).then(call.resolve, call.reject);
  if (calls.length === 1) return void alone(calls[0]);
  const batch = batchOf(script, calls);
  const args: RedisArg[] = [batch.keys.length, ...batch.keys, ...batch.args];
  sender.evalsha<unknown[]>(crossSlotFormOf(script), [], args, lane.queue, lane.client, calls.length, lane.node).then(
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
