import { Redis } from 'ioredis';
import { InvalidOptionsError } from './errors/invalid-options.error';
import { resolveOptions } from './redis-patterns.options';

function failure(options: unknown): InvalidOptionsError {
  try {
    resolveOptions(options);
  } catch (error) {
    if (error instanceof InvalidOptionsError) return error;
    throw error;
  }
  throw new Error('expected resolveOptions to throw');
}

describe('resolveOptions', () => {
  it('applies the fail-fast defaults', () => {
    const resolved = resolveOptions({});
    expect(resolved.keyPrefix).toBe('rp');
    expect(resolved.commandTimeoutMs).toBe(500);
    expect(resolved.connections.get('default')).toBe('redis://127.0.0.1:6379');
  });

  it.each([
    [{ conection: 'redis://x' }, 'conection', /unknown option/],
    [{ connection: 'http://localhost:6379' }, 'connection', /protocol "http:"/],
    [{ connection: 'not a url' }, 'connection', /not a URL/],
    [{ connection: 'redis://localhost:6379/abc' }, 'connection', /database number/],
    [{ connection: { cluster: { nodes: [] } } }, 'connection.cluster.nodes', /non-empty array/],
    [{ connection: { sentinel: { sentinels: [{ port: 1 }] } } }, 'connection.sentinel.name', /monitored master/],
    [{ connection: { client: {} } }, 'connection.client', /ioredis Redis or Cluster/],
    [{ connection: { port: 70000 } }, 'connection.port', /TCP port/],
    [{ connections: { default: 'redis://x' } }, 'connections.default', /connection name/],
    [{ connections: { queue: 'ftp://x' } }, 'connections.queue', /redis:\/\//],
    [{ keyPrefix: 'a{b}' }, 'keyPrefix', /hash tags/],
    [{ commandTimeoutMs: -1 }, 'commandTimeoutMs', /greater than 0/],
    [{ cache: { connection: 'missing' } }, 'cache.connection', /configured connection/],
    [{ lock: { connection: 'queue' }, connections: {} }, 'lock.connection', /configured connection/],
    [{ cache: 'yes' }, 'cache', /an object/],
  ])('rejects %j naming %s', (options, option, message) => {
    const error = failure(options);
    expect(error.option).toBe(option);
    expect(error.message).toContain(`"${option}"`);
    expect(error.message).toMatch(message);
  });

  describe('memory mode', () => {
    const nodeEnv = process.env.NODE_ENV;
    afterEach(() => {
      process.env.NODE_ENV = nodeEnv;
    });

    it('is on when the connection is memory:// (every connection then is)', () => {
      expect(resolveOptions({ connection: 'memory://' }).inMemory).toBe(true);
      expect(resolveOptions({ connection: 'memory://', connections: { queue: 'memory://' } }).inMemory).toBe(true);
      expect(resolveOptions({}).inMemory).toBe(false);
    });

    it.each([
      [{ connection: 'memory://', connections: { queue: 'redis://x' } }, 'connections.queue', /"memory:\/\/" as well/],
      [{ connections: { queue: 'memory://' } }, 'connections.queue', /only when `connection` is/],
      [{ connection: 'memory://', allowMemoryInProduction: 'yes' }, 'allowMemoryInProduction', /true or false/],
    ])('rejects %j naming %s', (options, option, message) => {
      const error = failure(options);
      expect(error.option).toBe(option);
      expect(error.message).toMatch(message);
    });

    it('is refused under NODE_ENV=production unless allowed', () => {
      process.env.NODE_ENV = 'production';
      const error = failure({ connection: 'memory://' });
      expect(error.option).toBe('connection');
      expect(error.message).toMatch(/NODE_ENV=production.*allowMemoryInProduction/);
      expect(resolveOptions({ connection: 'memory://', allowMemoryInProduction: true }).inMemory).toBe(true);
      expect(resolveOptions({ connection: 'redis://x' }).inMemory).toBe(false);
    });
  });

  it('accepts a section naming a configured connection', () => {
    const resolved = resolveOptions({ connections: { queue: 'redis://q:6379/2' }, streams: { connection: 'queue' } });
    expect([...resolved.connections.keys()]).toEqual(['default', 'queue']);
  });

  it('accepts an adopted client', () => {
    const client = new Redis({ lazyConnect: true });
    expect(resolveOptions({ connection: { client } }).connections.get('default')).toEqual({ client });
    client.disconnect();
  });

  it('never echoes a password from a malformed URL', () => {
    const error = failure({ connection: 'redis://user:s3cr3t-pass@host:6379/x' });
    expect(error.message).not.toContain('s3cr3t-pass');
  });
});
