import { ReplyError } from 'ioredis';
import { wasRefused } from './was-refused';

describe('wasRefused (a cluster command that did not run and may be sent again)', () => {
  it.each([
    'MOVED 4414 127.0.0.1:7001',
    'ASK 4414 127.0.0.1:7002',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'All keys in the pipeline should belong to the same slots allocation group',
  ])('%s', (message) => {
    expect(wasRefused(new ReplyError(message))).toBe(true);
  });

  it.each([
    'Command timed out',
    "Stream isn't writeable and enableOfflineQueue options is false",
    'WRONGTYPE Operation against a key holding the wrong kind of value',
    'ERR something ASK 1 x',
  ])('not %s (it may have run, or will fail again)', (message) => {
    expect(wasRefused(new Error(message))).toBe(false);
  });
});
