import { parseInfo } from '../parse-info';
import { judgeReplicaLag, replicationView } from './replica-lag';

const MB = 1024 * 1024;
const master = (offset: number, ...replicas: string[]) =>
  parseInfo(
    [
      '# Replication',
      'role:master',
      `connected_slaves:${replicas.length}`,
      ...replicas.map((r, i) => `slave${i}:${r}`),
      `master_repl_offset:${offset}`,
    ].join('\r\n'),
  );

describe('replica lag', () => {
  it('reads the replicas of INFO replication', () => {
    const view = replicationView(master(5000, 'ip=10.0.0.2,port=6380,state=online,offset=4000,lag=1'), 'm:1');
    expect(view).toEqual({
      endpoint: 'm:1',
      role: 'master',
      replicas: [{ endpoint: '10.0.0.2:6380', state: 'online', lag: 1, behind: 1000 }],
    });
  });

  it('passes without replicas, on a replica, and with replicas in step', () => {
    expect(judgeReplicaLag([replicationView(master(10), 'm:1')]).reason).toBe('no replica connected to m:1');
    expect(judgeReplicaLag([replicationView(parseInfo('role:slave'), 'r:1')]).reason).toMatch(/^r:1 is a replica/);
    const fine = judgeReplicaLag([replicationView(master(5000, 'ip=a,port=1,state=online,offset=4990,lag=0'), 'm:1')]);
    expect(fine).toMatchObject({ status: 'pass', evidence: ['a:1 of m:1: online, lag 0 s, 10 B behind'] });
  });

  it('warns on a replica far behind, silent too long, or not online', () => {
    const behind = judgeReplicaLag([replicationView(master(20 * MB, 'ip=a,port=1,state=online,offset=0,lag=0'), 'm:1')]);
    expect(behind).toMatchObject({ status: 'warn', reason: expect.stringContaining('a:1: online, lag 0 s, 20 MB behind') });
    expect(behind.fix).toMatch(/waitReplicas/);
    expect(judgeReplicaLag([replicationView(master(10, 'ip=a,port=1,state=online,offset=10,lag=11'), 'm')]).status).toBe('warn');
    expect(judgeReplicaLag([replicationView(master(10, 'ip=a,port=1,state=wait_bgsave,offset=0,lag=0'), 'm')]).status).toBe('warn');
  });
});
