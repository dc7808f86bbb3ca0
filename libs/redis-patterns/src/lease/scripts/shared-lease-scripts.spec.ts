import { EXTEND_SHARED_LEASE_SCRIPT } from './extend-shared-lease.script';
import { RELEASE_SHARED_LEASE_SCRIPT } from './release-shared-lease.script';

describe('shared-lease scripts', () => {
  it.each([EXTEND_SHARED_LEASE_SCRIPT, RELEASE_SHARED_LEASE_SCRIPT])('$name declares the keys and arguments its body uses', (script) => {
    const { body } = script;
    const highest = (name: string) => Math.max(0, ...[...body.matchAll(new RegExp(`${name}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1])));
    expect(highest('KEYS')).toBe(script.shape!.keys);
    expect(highest('ARGV')).toBe(script.shape!.args);
  });
});
