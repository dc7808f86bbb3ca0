/** Metadata key holding the queues a method writes. */
export const WRITE_BEHIND_WRITER = Symbol('redis-patterns:write-behind-writer');

/**
 * Makes a provider method the writer of a write-behind queue: it receives batches of `WriteBehindChange`s (the last
 * value of each key written since its previous flush, with its version) and an `AbortSignal`, and saves them to the
 * data source. Resolving settles the batch; throwing retries it, then dead-letters what keeps failing. Started at
 * bootstrap, drained at shutdown before the connections close.
 *
 * @example
 * \@WriteBehindWriter('orders')
 * async save(changes: WriteBehindChange<Order>[]) { await db.upsertOrders(changes.map(({ value, version }) => ({ ...value, version }))); }
 */
export function WriteBehindWriter(queue: string): MethodDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const queues = (Reflect.getOwnMetadata(WRITE_BEHIND_WRITER, method) as string[] | undefined) ?? [];
    Reflect.defineMetadata(WRITE_BEHIND_WRITER, [...queues, queue], method);
    return descriptor;
  };
}
