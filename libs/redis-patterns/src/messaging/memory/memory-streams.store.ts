import { NoRedisInMemoryModeError } from '../../errors/no-redis-in-memory-mode.error';
import type { RawEntry } from '../stream-replies';
import type { GroupBacklog, StreamReader, StreamsStore } from '../streams.store';

/** What every refusal names: the error tells the user to start a throwaway server (`startTestRedis`). */
const NEEDED = 'Redis Streams';

/**
 * Streams in memory mode (`connection: 'memory://'`): refused, clearly. Consumer groups, pending lists, reclaims and
 * dead letters are the behaviour a streams test is about, and a partial imitation would let such a test pass against
 * semantics Redis does not have. Every method rejects with {@link NoRedisInMemoryModeError} (`openReader` throws it),
 * whose message says to start a throwaway server with `startTestRedis()`.
 *
 * So in memory mode `StreamsService.add` (and every other call) rejects, `StreamsService.consume` throws, and an
 * application with a `@StreamConsumer` fails `app.init()`: the consumer is started at bootstrap, and starting it
 * opens its reader first.
 *
 * (The methods take no parameters: whatever they are given, the answer is the same refusal.)
 */
export class MemoryStreamsStore implements StreamsStore {
  add(): Promise<string> {
    return refuse();
  }

  createGroup(): Promise<boolean> {
    return refuse();
  }

  autoClaim(): Promise<{ cursor: string; ids: string[] }> {
    return refuse();
  }

  deliveries(): Promise<number | undefined> {
    return refuse();
  }

  ack(): Promise<number> {
    return refuse();
  }

  deadLetter(): Promise<void> {
    return refuse();
  }

  range(): Promise<RawEntry[]> {
    return refuse();
  }

  delete(): Promise<number> {
    return refuse();
  }

  openReader(): StreamReader {
    throw new NoRedisInMemoryModeError(NEEDED);
  }

  groupBacklog(): Promise<GroupBacklog | undefined> {
    return refuse();
  }
}

function refuse(): Promise<never> {
  return Promise.reject(new NoRedisInMemoryModeError(NEEDED));
}
