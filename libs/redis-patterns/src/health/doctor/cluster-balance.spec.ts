import { IMBALANCE_MIN_BYTES, IMBALANCE_MIN_KEYS, judgeClusterBalance, slotsPerMaster } from './cluster-balance';

const MB = 1024 * 1024;
const master = (endpoint: string, slots: number | undefined, keys: number, usedMemory = 2 * MB) => ({ endpoint, slots, keys, usedMemory });

describe('cluster balance', () => {
  it('counts the slots of each master from CLUSTER SLOTS', () => {
    const reply = [
      [0, 5460, ['127.0.0.1', 7000, 'a'], ['127.0.0.1', 7003, 'd']],
      [5461, 10922, ['127.0.0.1', 7001, 'b']],
      [10923, 16383, ['127.0.0.1', 7002, 'c']],
      [16384, 16383, 'junk'],
    ];
    expect(Object.fromEntries(slotsPerMaster(reply))).toEqual({ '127.0.0.1:7000': 5461, '127.0.0.1:7001': 5462, '127.0.0.1:7002': 5461 });
  });

  it('stays quiet on a small or balanced cluster', () => {
    expect(judgeClusterBalance([master('a', 5461, 0), master('b', 5462, 50), master('c', 5461, 1)]).status).toBe('pass');
    const balanced = judgeClusterBalance([master('a', 5461, 40_000), master('b', 5462, 30_000), master('c', 5461, 25_000)]);
    expect(balanced).toMatchObject({
      status: 'pass',
      evidence: ['a: 5461 slots, 40000 keys, 2 MB', expect.any(String), expect.any(String)],
    });
  });

  it('warns on keys, memory or slots more than 2× apart', () => {
    const keys = judgeClusterBalance([master('a', 5461, IMBALANCE_MIN_KEYS), master('b', 5462, 100), master('c', 5461, 120)]);
    expect(keys).toMatchObject({ status: 'warn', reason: expect.stringContaining(`keys 100 to ${IMBALANCE_MIN_KEYS}`) });
    expect(keys.fix).toMatch(/hash tag/);
    const memory = judgeClusterBalance([master('a', 5461, 5, IMBALANCE_MIN_BYTES), master('b', 5462, 5, 10 * MB)]);
    expect(memory.reason).toContain('used_memory 10 MB to 100 MB');
    expect(judgeClusterBalance([master('a', 12000, 0), master('b', 4384, 0)]).reason).toContain('slots 4384 to 12000');
    expect(judgeClusterBalance([master('a', 16384, 0), master('b', 0, 0)]).status).toBe('warn');
    expect(judgeClusterBalance([master('a', undefined, 0), master('b', 10, 0)]).status).toBe('pass'); // unmatched: not judged
  });
});
