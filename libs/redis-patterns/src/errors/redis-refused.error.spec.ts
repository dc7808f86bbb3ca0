import { ReplyError } from 'ioredis';
import { configurationReplyCode, RedisRefusedError } from './redis-refused.error';

describe('RedisRefusedError (configuration replies are not outages)', () => {
  it.each([
    ["NOPERM User app has no permissions to run the 'evalsha' command", 'NOPERM'],
    ["ERR unknown command 'EVALSHA', with args beginning with: ", 'ERR'],
    ['WRONGTYPE Operation against a key holding the wrong kind of value script: 1f2e, on @user_script:3.', 'WRONGTYPE'],
    ['NOAUTH Authentication required.', 'NOAUTH'],
    ['WRONGPASS invalid username-password pair or user is disabled.', 'WRONGPASS'],
  ])('%s is a configuration reply', (message, code) => {
    expect(configurationReplyCode(new ReplyError(message))).toBe(code);
    const wrapped = RedisRefusedError.from('evalsha', new ReplyError(message));
    expect(wrapped).toBeInstanceOf(RedisRefusedError);
    expect((wrapped as RedisRefusedError).message).toContain('Redis refused EVALSHA');
    expect((wrapped as RedisRefusedError).reply).toBe(code);
  });

  it.each([
    'Command timed out',
    "Stream isn't writeable and enableOfflineQueue options is false",
    'LOADING Redis is loading the dataset in memory',
    'MOVED 4414 127.0.0.1:7001',
    'ERR Error running script: attempt to compare nil with number',
  ])('%s is not', (message) => {
    const error = new Error(message);
    expect(configurationReplyCode(error)).toBeUndefined();
    expect(RedisRefusedError.from('evalsha', error)).toBe(error);
  });
});
