import { type StartTestRedisOptions, startTestRedis, type TestRedis } from './start-test-redis';

type Hook = (fn: () => Promise<unknown>, timeoutMs?: number) => void;

/** The server of a test file, available from `beforeAll` on (reading it earlier throws). */
export interface TestRedisHandle {
  /** As {@link TestRedis.url}. */
  readonly url: string;
  /** As {@link TestRedis.port}. */
  readonly port: number;
  /** As {@link TestRedis.connection}: what to give `RedisPatternsModule.forRoot({ connection })`. */
  readonly connection: TestRedis['connection'];
  /** As {@link TestRedis.nodes}. */
  readonly nodes: TestRedis['nodes'];
}

/**
 * One throwaway Redis per test file, in one line: starts it in `beforeAll` and stops it in `afterAll` (jest or
 * vitest globals). Call it at the top of a test file or `describe`.
 *
 * @example
 * const redis = useTestRedis();
 * beforeAll(async () => { app = await createApp({ connection: redis.connection }); });
 */
export function useTestRedis(options: StartTestRedisOptions = {}): TestRedisHandle {
  const globals = globalThis as { beforeAll?: Hook; afterAll?: Hook };
  if (typeof globals.beforeAll !== 'function' || typeof globals.afterAll !== 'function') {
    throw new Error(
      'useTestRedis() needs the beforeAll/afterAll globals of jest or vitest (vitest: `globals: true`); elsewhere use startTestRedis().',
    );
  }
  let started: TestRedis | undefined;
  const get = (): TestRedis => {
    if (!started) throw new Error('useTestRedis(): the server starts in beforeAll; read it inside a hook or a test.');
    return started;
  };
  globals.beforeAll(async () => {
    started = await startTestRedis(options);
  }, 30_000);
  globals.afterAll(async () => {
    await started?.stop();
  }, 30_000);
  return {
    get url() {
      return get().url;
    },
    get port() {
      return get().port;
    },
    get connection() {
      return get().connection;
    },
    get nodes() {
      return get().nodes;
    },
  };
}
