import { type Cluster, Command } from 'ioredis';

/**
 * An error that says the command did not run: a node's redirection (its slot lives elsewhere or is being migrated),
 * or ioredis refusing to send an auto-pipelined batch whose keys no longer map to one node (the slot map changed
 * between queueing and sending).
 */
export function wasRefused(error: unknown): boolean {
  const message = (error as Error | undefined)?.message ?? '';
  return /^(MOVED|ASK|TRYAGAIN) /.test(message) || message.startsWith('All keys in the pipeline should belong to the same slots');
}

/**
 * The reply of an auto-pipelined cluster command; when it was refused (see wasRefused), the command is sent once
 * more on its own. ioredis follows MOVED, ASK and TRYAGAIN for a command sent alone, but retries an
 * auto-pipelined batch (the commands of many slots on one node) only when every command in it failed the same way:
 * while a slot moves, a GET refused next to a SET that succeeded would fail outright. A refused command did not
 * run, so sending it again is safe for writes too; sent alone, it is never refused for its batch's slot mix.
 */
export function resendIfRefused<T>(cluster: Cluster, reply: Promise<T>, name: string, args: ReadonlyArray<string | number>): Promise<T> {
  return reply.catch((error: unknown) => {
    if (!wasRefused(error)) throw error;
    return cluster.sendCommand(new Command(name, [...args], { replyEncoding: 'utf8' })) as Promise<T>;
  });
}
