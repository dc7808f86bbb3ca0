import { parseInfo } from '../parse-info';
import { commandCalls, formatUptime, judgeBlockingCommands } from './blocking-commands';

const stats = (text: string) => parseInfo(`# Commandstats\r\n${text}`);

describe('blocking commands', () => {
  it('sums the calls of INFO commandstats over the masters', () => {
    const calls = commandCalls([
      stats('cmdstat_keys:calls=3,usec=40,usec_per_call=13.33,rejected_calls=0,failed_calls=0\r\ncmdstat_client|setname:calls=1,usec=1'),
      stats('cmdstat_keys:calls=2,usec=40\r\ncmdstat_get:calls=99,usec=40'),
    ]);
    expect(calls).toEqual({ keys: 5, 'client|setname': 1, get: 99 });
  });

  it('passes when none of the blocking commands ran', () => {
    const check = judgeBlockingCommands({ get: 1000, scan: 3 }, 90);
    expect(check).toMatchObject({ name: 'blocking-commands', status: 'pass' });
    expect(check.reason).toBe(
      'none of KEYS, FLUSHALL, FLUSHDB, SAVE, DEBUG called since the statistics began (a restart or CONFIG RESETSTAT; uptime 1 min)',
    );
  });

  it('warns with the counts, and says FLUSH* counts include ASYNC', () => {
    const check = judgeBlockingCommands({ keys: 3, flushdb: 1, get: 5 }, undefined);
    expect(check.status).toBe('warn');
    expect(check.reason).toMatch(
      /^KEYS 3 calls, FLUSHDB 1 call since the statistics began \(a restart or CONFIG RESETSTAT\): .*cannot tell apart/,
    );
    expect(check.evidence).toEqual([expect.stringMatching(/^KEYS: 3 calls — /), expect.stringMatching(/^FLUSHDB: 1 call — /)]);
    expect(check.fix).toMatch(/SCAN/);
    expect(judgeBlockingCommands({ debug: 2 }, 5).reason).not.toContain('ASYNC');
  });

  it('formats an uptime', () => {
    expect(formatUptime(42)).toBe('42 s');
    expect(formatUptime(7500)).toBe('2 h 5 min');
    expect(formatUptime(3 * 86_400 + 4 * 3600)).toBe('3 d 4 h');
  });
});
