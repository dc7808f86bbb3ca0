// CONN-8 (goal G16): against a server with requirepass and an ACL user, wrong and right credentials (URL and
// options), with DEBUG=ioredis:* on: no captured byte of output contains a password.
import { TsChild } from '../lib/child';
import { check, type Scenario } from '../lib/scenario';
import { ownStandalone } from '../lib/servers';

const DEFAULT_PASSWORD = 'Req-Pass-7f3a91c2';
const USER_PASSWORD = 'Acl-Pass-5d2e8b64';
const WRONG = ['Wrong-Pass-0c4d1e9a', 'Wrong-Pass-b7a2f630'];
const SECRETS = [DEFAULT_PASSWORD, USER_PASSWORD, ...WRONG];

export const secretsScenario: Scenario = {
  id: 'SECRETS',
  title: 'secrets never appear in errors or logs',
  deadlineMs: 90_000,
  async run(context) {
    // The harness PINGs without a password to see the server up, so the secrets are set afterwards (over
    // loopback, from the runner; never on a command line a scenario prints).
    const server = await ownStandalone(context, 'secrets');
    await server.cli('ACL', 'SETUSER', 'app', 'on', `>${USER_PASSWORD}`, '~fsec:*', '&*', '+@all', '-@dangerous', '+info');
    await server.cli('CONFIG', 'SET', 'requirepass', DEFAULT_PASSWORD);
    const port = server.port;
    const cases: Array<[string, unknown, string]> = [
      ['wrong default password in the URL', `redis://:${WRONG[0]}@127.0.0.1:${port}`, 'error'],
      ['ACL user with a wrong password (options)', { host: '127.0.0.1', port, username: 'app', password: WRONG[1] }, 'error'],
      ['no password at all', `redis://127.0.0.1:${port}`, 'error'],
      ['ACL user, right password in the URL', `redis://app:${encodeURIComponent(USER_PASSWORD)}@127.0.0.1:${port}`, 'ok'],
      ['default user, right password (options)', { host: '127.0.0.1', port, password: DEFAULT_PASSWORD }, 'ok'],
    ];
    const outcomes: string[] = [];
    let hits = 0;
    let debugHits = 0;
    const debugLeaks: string[] = [];
    let bytes = 0;
    const leaks: string[] = [];
    for (const [label, connection, expected] of cases) {
      const child = new TsChild('test/fixtures/faults/secrets-client.ts', { CONNECTION: JSON.stringify(connection), DEBUG: 'ioredis:*' });
      context.defer(() => child.kill());
      const outcome = (await child.waitForLine(/^outcome (\S+)/, 30_000))[1];
      await child.exited;
      const output = child.stdout + child.stderr;
      bytes += output.length;
      // ioredis' own debug lines (DEBUG=ioredis:*) are counted apart: the library does not write them.
      for (const line of output.split('\n')) {
        const secret = SECRETS.find((s) => line.includes(s));
        if (!secret) continue;
        const fromIoredisDebug = /\bioredis:\w+/.test(line);
        if (fromIoredisDebug) debugHits++;
        else hits++;
        const at = line.indexOf(secret);
        (fromIoredisDebug ? debugLeaks : leaks).push(`${label}: ${line.slice(Math.max(0, at - 90), at)}<secret>`);
      }
      outcomes.push(`${label}: ${outcome}${outcome === expected ? '' : ` (expected ${expected})`}`);
    }
    const unexpected = outcomes.filter((o) => o.includes('expected'));
    Object.assign(context.figures, {
      outcomes,
      hits,
      debugHits,
      capturedBytes: bytes,
      leaks: leaks.slice(0, 5),
      debugLeaks: debugLeaks.slice(0, 3),
    });
    return [
      check(
        'CONN-8',
        'wrong/missing credentials fail startup, right ones work (URL and options, ACL user)',
        unexpected.length ? unexpected.join('; ') : `${cases.length} of ${cases.length} as expected`,
        unexpected.length === 0,
      ),
      check(
        'G16 CONN-8',
        'no password in library output: Nest logs, startup errors, error stacks and util.inspect (causes included)',
        `lines with a password ${hits} in ${Math.round(bytes / 1024)} KB captured${leaks.length ? `; e.g. …${leaks[0].slice(-160)}` : ''}`,
        hits === 0,
      ),
      check(
        'G16 CONN-8',
        'no password in DEBUG=ioredis:* output either (goal G16)',
        `ioredis debug lines with a password ${debugHits}${debugLeaks.length ? `; e.g. …${debugLeaks[0].slice(-120)}` : ''} (ioredis logs HELLO/AUTH arguments, redis/ioredis#1796: the module redacts its connections' passwords from that output)`,
        debugHits === 0,
      ),
    ];
  },
};
