import { judgePermissions } from './permissions';

const need = (grant: string) => ({ grant, call: [grant] });
const endpoint = '127.0.0.1:6379';

describe('permissions', () => {
  it('passes when ACL DRYRUN allows every command and the startup check passed', () => {
    const check = judgePermissions({
      user: 'app',
      startupCheck: 'passed',
      endpoint,
      dryRun: { checked: [need('get'), need('set')], denied: [] },
    });
    expect(check).toEqual({
      name: 'permissions',
      status: 'pass',
      reason: 'user app may run the 2 commands the workloads need (ACL DRYRUN on 127.0.0.1:6379), and the startup check passed',
    });
  });

  it('fails naming the refused grants, with the ACL SETUSER that fixes them', () => {
    const check = judgePermissions({
      user: 'app',
      endpoint,
      dryRun: {
        checked: [need('get'), need('hset'), need('zadd')],
        denied: [{ grant: 'hset', denial: "This user has no permissions to run the 'hset' command" }],
      },
    });
    expect(check.status).toBe('fail');
    expect(check.reason).toBe('user app may not run 1 of the 3 commands the workloads need: the patterns would throw RedisRefusedError');
    expect(check.evidence).toEqual(['commands refused: hset']);
    expect(check.fix).toMatch(/^ACL SETUSER app \+hset /);
    const keys = judgePermissions({
      user: 'app',
      endpoint,
      dryRun: {
        checked: [need('get'), need('set')],
        denied: [
          { grant: 'get', denial: "This user has no permissions to access the 'rp:doctor:acl' key" },
          { grant: 'set', denial: "This user has no permissions to access the 'rp:doctor:acl' key" },
        ],
      },
    });
    expect(keys.evidence).toEqual([
      "get: This user has no permissions to access the 'rp:doctor:acl' key",
      "set: This user has no permissions to access the 'rp:doctor:acl' key",
    ]);
  });

  it('fails on a refused startup check, with or without ACL DRYRUN', () => {
    const refused = "EVALSHA NOPERM User app has no permissions to run the 'evalsha' command";
    expect(judgePermissions({ user: 'app', startupCheck: refused, endpoint, dryRun: { checked: [need('get')], denied: [] } }).status).toBe(
      'fail',
    );
    const alone = judgePermissions({ startupCheck: refused, endpoint, dryRunUnavailable: 'ACL WHOAMI refused: NOPERM …' });
    expect(alone).toMatchObject({ status: 'fail', reason: expect.stringContaining('the startup check was refused') });
  });

  it('warns that the check could not run when ACL DRYRUN is refused or missing, and how to run it', () => {
    const check = judgePermissions({
      startupCheck: 'passed',
      endpoint,
      dryRunUnavailable: "ACL WHOAMI refused: NOPERM this user has no permissions to run the 'acl|whoami' command",
    });
    expect(check.status).toBe('warn');
    expect(check.reason).toMatch(
      /^ACL DRYRUN could not run \(ACL WHOAMI refused: .*\), so the workloads' commands were not judged; the startup check passed/,
    );
    expect(check.fix).toMatch(/as an administrator with --acl-user/);
  });
});
