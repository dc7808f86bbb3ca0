import { createRequire } from 'node:module';
import { redactDebugOutput } from './redact-debug-output';

type Debug = ((namespace: string) => ((...args: unknown[]) => void) & { enabled: boolean }) & {
  enable(ns: string): void;
  disable(): string;
};

describe('redactDebugOutput', () => {
  // The debug instance ioredis itself loads (the one that prints its commands with DEBUG=ioredis:*).
  const debug = createRequire(require.resolve('ioredis'))('debug') as Debug;

  it("removes the connections' passwords from the debug output ioredis writes, and leaves other output alone", () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const previous = debug.disable();
    try {
      debug.enable('ioredis:test-redaction');
      const log = debug('ioredis:test-redaction');
      redactDebugOutput(['s3cret-Passw0rd']);
      log('%s -> hello(%o)', 'client', ['3', 'AUTH', 'default', 's3cret-Passw0rd']);
      log('connecting to redis://app:s3cret-Passw0rd@127.0.0.1:6379');
      log('plain line');
    } finally {
      write.mockRestore();
      debug.enable(previous);
    }
    expect(written).toHaveLength(3);
    expect(written.join('')).not.toContain('s3cret-Passw0rd');
    expect(written[0]).toContain("'AUTH', 'default', '***'");
    expect(written[1]).toContain('redis://app:***@127.0.0.1:6379');
    expect(written[2]).toContain('plain line');
  });
});
