import { commandName, judgeSlowCommands, parseSlowlog } from './slow-commands';

describe('slow commands', () => {
  it('names a command, and a container command with its subcommand, never with other arguments', () => {
    expect(commandName(['set', 'user:1:token', 's3cret'])).toBe('SET');
    expect(commandName(['debug', 'sleep', '0.05'])).toBe('DEBUG SLEEP');
    expect(commandName(['config', 'set', 'requirepass', 'pw'])).toBe('CONFIG SET');
    expect(commandName(['client', 'no such thing!'])).toBe('CLIENT');
    expect(commandName([])).toBe('?');
  });

  it('reduces a SLOWLOG GET reply to names and durations', () => {
    const reply = [
      [7, 1700000000, 50_123, ['debug', 'sleep', '0.05'], '127.0.0.1:5000', ''],
      [6, 1700000000, 12, ['auth', 'hunter2'], '127.0.0.1:5000', 'app'],
    ];
    const entries = parseSlowlog(reply, 'n:1');
    expect(entries).toEqual([
      { command: 'DEBUG SLEEP', durationUs: 50_123, node: 'n:1' },
      { command: 'AUTH', durationUs: 12, node: 'n:1' },
    ]);
    expect(JSON.stringify(entries)).not.toContain('hunter2');
    expect(parseSlowlog('nope')).toEqual([]);
  });

  it('passes an empty or fast log, warns from 10 ms listing the three slowest', () => {
    expect(judgeSlowCommands([]).status).toBe('pass');
    expect(judgeSlowCommands([{ command: 'GET', durationUs: 9_999 }])).toMatchObject({ status: 'pass', evidence: ['GET 10.0 ms'] });
    const check = judgeSlowCommands([
      { command: 'GET', durationUs: 20 },
      { command: 'DEBUG SLEEP', durationUs: 50_000 },
      { command: 'HGETALL', durationUs: 12_000 },
      { command: 'KEYS', durationUs: 30_000 },
    ]);
    expect(check.status).toBe('warn');
    expect(check.reason).toMatch(/^3 of 4 SLOWLOG entries ran 10.0 ms or longer, the slowest DEBUG SLEEP for 50.0 ms/);
    expect(check.evidence).toEqual(['DEBUG SLEEP 50.0 ms', 'KEYS 30.0 ms', 'HGETALL 12.0 ms']);
    expect(check.fix).toMatch(/HSCAN/);
  });
});
