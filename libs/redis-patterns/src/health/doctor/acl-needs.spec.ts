import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACL_NEEDS, aclNeeds } from './acl-needs';

/** docs/security.md: the `acl <block>` fences, and the grants a cluster adds. */
const page = readFileSync(join(__dirname, '../../../../../docs/security.md'), 'utf8');
const documented = new Map([...page.matchAll(/```acl (\w+)\n([^`]+)```/g)].map((m) => [m[1], m[2]]));
documented.set('cluster', /On a cluster, add `([^`]+)`/.exec(page)?.[1] ?? '');
const grants = (acl: string) =>
  acl
    .split(/\s+/)
    .filter((token) => token.startsWith('+'))
    .map((token) => token.slice(1))
    .sort();

describe('the ACL the doctor checks is the ACL docs/security.md documents', () => {
  it.each(Object.keys(ACL_NEEDS))('%s', (block) => {
    expect(documented.has(block)).toBe(true);
    expect(Object.keys(ACL_NEEDS[block]).sort()).toEqual(grants(documented.get(block)!));
  });

  it('gives each workload core and its blocks, each command once, with keys under the prefix', () => {
    const needs = aclNeeds(['locks', 'rate-limit'], false, 'app:doctor:acl');
    const names = needs.map((need) => need.grant);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['evalsha', 'client|setname', 'zcount', 'zpopmax', 'wait']));
    expect(names).not.toContain('cluster|slots');
    expect(needs.find((need) => need.grant === 'hset')).toBeUndefined();
    expect(needs.find((need) => need.grant === 'zadd')?.call).toEqual(['zadd', 'app:doctor:acl', '1', 'm']);
    expect(aclNeeds(['sessions'], true, 'k').map((need) => need.grant)).toEqual(
      expect.arrayContaining(['cluster|slots', 'asking', 'hgetall']),
    );
  });
});
