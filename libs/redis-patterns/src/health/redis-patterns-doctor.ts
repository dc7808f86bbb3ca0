import { Inject, Injectable } from '@nestjs/common';
import { RedisConnections } from '../core/connections/redis-connections';
import { DEFAULT_CONNECTION } from '../core/options/resolve-options';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { RESOLVED_OPTIONS } from '../redis-patterns.constants';
import type { ResolvedRedisPatternsOptions } from '../redis-patterns.options';
import type { DoctorOptions, DoctorReport } from './doctor/doctor.types';
import { diagnose } from './doctor/run-doctor';

/** Options of {@link RedisPatternsDoctor.run}: the prefix and the connection come from the module. */
export interface RedisPatternsDoctorOptions extends Pick<
  DoctorOptions,
  'workloads' | 'scanSampleLimit' | 'topKeys' | 'bigKeyBytes' | 'bigKeyElements' | 'aclUser' | 'lockTtlMs'
> {
  /** The module connection to check (default: the default connection). */
  connection?: string;
}

const KNOWN = ['connection', 'workloads', 'scanSampleLimit', 'topKeys', 'bigKeyBytes', 'bigKeyElements', 'aclUser', 'lockTtlMs'];

/**
 * The doctor (see `runDoctor`) run from inside the application, on the module's own connection and `keyPrefix`, so
 * the key-TTL check scans the keys the application writes. The connection stays open; the self-test's two keys are
 * written under `<keyPrefix>:doctor:lock:*` with a TTL and deleted. Not available in memory mode (there is no Redis
 * to check): `run` rejects with `NoRedisInMemoryModeError`.
 *
 * @example
 * const report = await app.get(RedisPatternsDoctor).run({ workloads: ['cache', 'locks'] });
 * console.log(formatReport(report));
 */
@Injectable()
export class RedisPatternsDoctor {
  /** Created by the module's dependency injection; not part of the public API. @internal */
  constructor(
    private readonly connections: RedisConnections,
    @Inject(RESOLVED_OPTIONS) private readonly options: ResolvedRedisPatternsOptions,
  ) {}

  /**
   * Runs every check against one of the module's connections and resolves with the report (it never rejects for a
   * failed check: the report says `fail`).
   * @throws InvalidArgumentError for an unknown option; ConnectionNotFoundError for a connection not configured.
   */
  async run(options: RedisPatternsDoctorOptions = {}): Promise<DoctorReport> {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected an object');
    const unknown = Object.keys(options).find((key) => !KNOWN.includes(key));
    if (unknown) throw new InvalidArgumentError(`options.${unknown}`, `expected one of ${KNOWN.join(', ')}`);
    const { connection = DEFAULT_CONNECTION, ...checks } = options;
    const client = this.connections.get(connection);
    return diagnose(
      { ...checks, client, keyPrefix: this.options.keyPrefix },
      { prefixHint: "it is this application's keyPrefix: nothing the doctor can check is stored yet" },
    );
  }
}
