import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/**
 * A Lua script with a fixed number of keys. Each script lives in its own module with a header block listing
 * KEYS, ARGV and the return value. It is registered on a client with ioredis `defineCommand`, which sends EVALSHA
 * and falls back to EVAL on NOSCRIPT per node, so a SCRIPT FLUSH or a failover needs no code of ours.
 */
export interface RedisScript<TResult> {
  /** Short name, used in the command name and in errors. */
  readonly name: string;
  readonly lua: string;
  readonly numberOfKeys: number;
  /** `rp_<name>_<sha1 prefix>`: content-versioned so two library versions on one server never collide. */
  readonly commandName: string;
  /** Phantom field carrying the result type. */
  readonly __result?: TResult;
}

/** What defining a script on a client needs; `numberOfKeys` undefined means the caller passes the key count first. */
export interface ScriptDefinition {
  readonly name: string;
  readonly lua: string;
  readonly commandName: string;
  readonly numberOfKeys?: number;
}

type ScriptCommand = (...keysAndArgs: Array<string | number | Buffer>) => Promise<unknown>;

const declared = new Map<string, ScriptDefinition>();
const definedOn = new WeakMap<Redis | Cluster, Set<string>>();

/** Declares a script; `TResult` is the shape of the reply (ioredis maps Lua tables to arrays). */
export function defineScript<TResult>(name: string, numberOfKeys: number, lua: string): RedisScript<TResult> {
  return declareScript({ name, lua, numberOfKeys, commandName: scriptCommandName(name, lua) });
}

/** `rp_<name>_<sha1 prefix of the Lua text>`. */
export function scriptCommandName(name: string, lua: string): string {
  return `rp_${name}_${createHash('sha1').update(lua).digest('hex').slice(0, 10)}`;
}

/** Adds a script to those registerScripts defines on every connection. @internal */
export function declareScript<T extends ScriptDefinition>(script: T): T {
  declared.set(script.commandName, script);
  return script;
}

/**
 * Defines every declared script on a client. The module calls it when it creates (or adopts) a connection, before
 * any command: ioredis copies custom commands into an auto-pipeline when the pipeline opens, so a command defined
 * while a pipeline is open in the same tick is missing from it and that batch's replies go astray.
 */
export function registerScripts(client: Redis | Cluster): void {
  for (const script of declared.values()) ensureDefined(client, script);
}

/** Defines one script on a client unless it already is (normally done by registerScripts). @internal */
export function ensureDefined(client: Redis | Cluster, script: ScriptDefinition): void {
  let defined = definedOn.get(client);
  if (!defined) {
    defined = new Set();
    definedOn.set(client, defined);
  }
  if (defined.has(script.commandName)) return;
  client.defineCommand(script.commandName, { lua: script.lua, numberOfKeys: script.numberOfKeys });
  defined.add(script.commandName);
}

/**
 * Runs a script on a client: one EVALSHA (one round trip). `keys` must hold exactly `numberOfKeys` keys, all in one
 * slot when the client is a cluster (build them with `KeyBuilder.slotGroup`).
 */
export function runScript<TResult>(
  client: Redis | Cluster,
  script: RedisScript<TResult>,
  keys: readonly string[],
  args: ReadonlyArray<string | number | Buffer>,
): Promise<TResult> {
  // Normally a no-op: registerScripts defined it when the connection was created.
  ensureDefined(client, script);
  if (keys.length !== script.numberOfKeys) {
    return Promise.reject(new TypeError(`Script ${script.name} expects ${script.numberOfKeys} keys, got ${keys.length}.`));
  }
  const command = (client as unknown as Record<string, ScriptCommand>)[script.commandName];
  return command.call(client, ...keys, ...args) as Promise<TResult>;
}
