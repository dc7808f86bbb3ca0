/** Thrown by `CacheService.set` when a serialized value exceeds `cache.maxValueBytes`; nothing is written. */
export class CacheValueTooLargeError extends RangeError {
  constructor(
    readonly bytes: number,
    readonly maxValueBytes: number,
  ) {
    super(
      `The serialized value is ${bytes} bytes, over the cache limit of ${maxValueBytes} bytes (cache.maxValueBytes); it was not stored.`,
    );
  }

  override get name(): string {
    return this.constructor.name;
  }
}
