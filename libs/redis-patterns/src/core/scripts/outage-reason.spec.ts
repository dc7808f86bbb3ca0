import { ReplyError } from 'ioredis';
import { outageReason } from './outage-reason';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function named(name: string, message: string): Error {
  const error = new Error(message);
  Object.defineProperty(error, 'name', { value: name });
  return error;
}

describe('outageReason (ioredis failing a command for want of a server)', () => {
  it.each<[string, Error, string]>([
    ['a command deadline', new Error('Command timed out'), 'timeout'],
    [
      'a socket closed with the answer awaited',
      named(
        'MaxRetriesPerRequestError',
        'Reached the max retries per request limit (which is 0). Refer to "maxRetriesPerRequest" option for details.',
      ),
      'connection-lost',
    ],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET'), 'connection-lost'],
    ['no offline queue while reconnecting', new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'disconnected'],
    ['a cluster not ready', new Error("Cluster isn't ready and enableOfflineQueue options is false"), 'disconnected'],
    ['a closed connection', new Error('Connection is closed.'), 'disconnected'],
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'), 'disconnected'],
    ['no cluster node', new Error('None of startup nodes is available'), 'disconnected'],
    [
      'redirections ending on a closed node',
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      'disconnected',
    ],
  ])('%s is an outage', (_, error, reason) => {
    expect(outageReason(error)).toBe(reason);
  });

  it.each<[string, unknown]>([
    ['a script error', new ReplyError('ERR Error running script: attempt to compare nil with number')],
    ['a refusal', new ReplyError("NOPERM User app has no permissions to run the 'evalsha' command")],
    ['memory full', new ReplyError('OOM command not allowed when used memory > maxmemory')],
    ['a redirection', new ReplyError('MOVED 4414 127.0.0.1:7001')],
    ['an argument error', new TypeError('Script x expects 1 keys, got 2.')],
    ['something not an Error', 'Command timed out'],
  ])('%s is not', (_, error) => {
    expect(outageReason(error)).toBeUndefined();
  });
});
