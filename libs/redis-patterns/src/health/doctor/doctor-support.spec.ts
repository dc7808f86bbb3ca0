import { couldNotRun, formatBytes, plural, refusalOf } from './doctor-support';

describe('doctor support', () => {
  it('formats bytes as Redis does (1 KB = 1024 B)', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3 GB');
    expect(plural(1, 'key')).toBe('1 key');
    expect(plural(2, 'key')).toBe('2 keys');
  });

  it('recognises a refusal, without the arguments Redis echoes', () => {
    expect(refusalOf(new Error("NOPERM this user has no permissions to run the 'slowlog|get' command"))).toBe(
      "NOPERM this user has no permissions to run the 'slowlog|get' command",
    );
    expect(refusalOf(new Error("ERR unknown command 'MEMORY', with args beginning with: 'USAGE' 'user:42:secret' "))).toBe(
      "ERR unknown command 'MEMORY'",
    );
    expect(refusalOf(new Error('Command timed out'))).toBeUndefined();
    expect(refusalOf(new Error('ECONNREFUSED'))).toBeUndefined();
  });

  it('turns a refusal into a warning that the check could not run', () => {
    expect(couldNotRun('slow-commands', 'NOPERM …')).toMatchObject({
      name: 'slow-commands',
      status: 'warn',
      reason: 'could not run: the server refused a command the check needs (NOPERM …)',
      fix: expect.stringContaining('administrator'),
    });
  });
});
