/** Thrown by `RedisConnections.get(name)` when no connection of that name was configured. */
export class ConnectionNotFoundError extends Error {
  constructor(
    readonly connectionName: string,
    known: readonly string[],
  ) {
    super(`No Redis connection named "${connectionName}". Configured: ${known.map((n) => `"${n}"`).join(', ')}.`);
  }

  override get name(): string {
    return this.constructor.name;
  }
}
