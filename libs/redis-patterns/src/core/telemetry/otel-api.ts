let loaded: unknown;
let tried = false;

/**
 * `@opentelemetry/api`, loaded on first use, or null when it is not installed. It is required rather than imported:
 * the package is an optional peer, so the library must load without it, and its declarations never name it. Each
 * caller types the part of the API it uses (see metrics.ts and tracing.ts).
 */
export function otelApi<TApi>(): TApi | null {
  if (!tried) {
    tried = true;
    try {
      loaded = require('@opentelemetry/api');
    } catch {
      loaded = null;
    }
  }
  return loaded as TApi | null;
}
