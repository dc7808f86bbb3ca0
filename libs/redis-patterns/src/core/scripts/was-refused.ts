/**
 * An error that says the command did not run: a node's redirection (its slot lives elsewhere or is being migrated),
 * or ioredis refusing to send an auto-pipelined batch whose keys no longer map to one node (the slot map changed
 * between queueing and sending).
 */
export function wasRefused(error: unknown): boolean {
  const message = (error as Error | undefined)?.message ?? '';
  return /^(MOVED|ASK|TRYAGAIN) /.test(message) || message.startsWith('All keys in the pipeline should belong to the same slots');
}
