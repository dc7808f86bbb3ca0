import { judgePersistence, persistenceSettings } from './persistence';

const settings = (appendonly: string, appendfsync: string, save: string) =>
  persistenceSettings(['appendonly', appendonly, 'appendfsync', appendfsync, 'save', save]);

describe('persistence', () => {
  it('reads a CONFIG GET reply', () => {
    expect(persistenceSettings(['save', '3600 1', 'APPENDONLY', 'yes'], 'n:1')).toEqual({
      endpoint: 'n:1',
      appendonly: 'yes',
      appendfsync: '?',
      save: '3600 1',
    });
  });

  it.each([
    ['no', 'everysec', '', ['locks'], 'warn', /^no persistence \(appendonly no, save ""\).*held locks are forgotten/],
    ['no', 'everysec', '3600 1 300 100', ['locks'], 'warn', /only RDB snapshots/],
    ['yes', 'no', '', ['locks'], 'warn', /appendfsync no/],
    ['yes', 'everysec', '', ['locks'], 'pass', /at most a second/],
    ['yes', 'always', '', ['locks', 'streams'], 'pass', /^appendonly yes, appendfsync always, save ""$/],
    ['no', 'everysec', '', ['streams'], 'warn', /queued stream messages are lost/],
    ['no', 'everysec', '', ['cache', 'rate-limit'], 'pass', /no locks or streams here/],
  ] as const)('appendonly %s, appendfsync %s, save "%s" with %j: %s', (appendonly, appendfsync, save, workloads, status, reason) => {
    const check = judgePersistence([settings(appendonly, appendfsync, save)], workloads);
    expect(check).toMatchObject({ name: 'persistence', status, reason: expect.stringMatching(reason) });
    if (status === 'warn') expect(check.fix).toMatch(/appendonly yes with appendfsync everysec.*longest lock TTL.*docs\/locks\.md/);
  });
});
