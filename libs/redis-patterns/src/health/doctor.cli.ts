/**
 * `nestjs-redis-patterns doctor --url redis://host:6379 [--cluster] [--prefix rp] [--workload cache,locks]
 * [--sample-limit 10000] [--top 5] [--big-key-bytes N] [--big-key-elements N] [--acl-user NAME] [--lock-ttl-ms 5000]
 * [--timeout-ms 2000] [--json]`, or `doctor --help`
 *
 * Runs the verification procedure (see runDoctor) and prints one pass / warn / fail line per check, with its evidence
 * and fix under it. The password
 * comes from the URL or, preferably, from the REDISCLI_AUTH environment variable (never from argv, which `ps`
 * shows). Exit code: 0 when nothing failed (warnings included), 1 when a check failed, 2 on bad arguments.
 */
import { ALL_WORKLOADS, type DoctorOptions, type DoctorWorkload } from './doctor/doctor.types';
import { formatReport } from './doctor/format-report';
import { diagnose } from './doctor/run-doctor';

const USAGE =
  'usage: nestjs-redis-patterns doctor [--url redis://host:port[/db]] [--cluster] [--prefix rp] [--workload cache,locks,…] [--sample-limit N] [--top N] [--big-key-bytes N] [--big-key-elements N] [--acl-user NAME] [--lock-ttl-ms N] [--timeout-ms N] [--json]   (doctor --help for details)';

/** What `doctor --help` prints: every flag with its default, where the password comes from, the exit codes. */
const DOCTOR_HELP = `usage: nestjs-redis-patterns doctor [options]

Checks a Redis deployment against the library's verification procedure and the production hazards of the Redis
pattern write-ups: connectivity and auth, dbsize and memory, the eviction policy against the workload, keys without
a TTL under the prefix, big keys, hot keys, blocking and slow commands, the balance of a cluster's masters,
fragmentation, evictions, rejected connections, replica lag, persistence, the ACL permissions the workloads need,
and the lock self-test. Each finding is PASS, WARN or FAIL with its reason, the evidence under it and the fix.
A check the server does not let run (CONFIG, SLOWLOG, MEMORY, ACL blocked or renamed) warns; the others go on.

options:
  --url redis://host:port[/db]  the server (rediss:// for TLS); default $REDIS_URL, then redis://127.0.0.1:6379
  --cluster                     treat --url as the seed of a Redis Cluster
  --prefix PREFIX               the application's keyPrefix (default rp): only PREFIX:* is scanned for keys without
                                a TTL, and finding none there is a warning
  --workload LIST               what the server is used for, a comma list of ${ALL_WORKLOADS.join(',')}
                                (default: all); judges the eviction policy, evictions, persistence and permissions
  --sample-limit N              examine at most N keys under PREFIX:* for a TTL, and at most N keys of the whole
                                keyspace (SCAN, never KEYS) for big and hot keys (default 10000)
  --top N                       list the N largest and the N hottest sampled keys (default 5)
  --big-key-bytes N             a key using more than N bytes is big (default 10485760, 10 MB)
  --big-key-elements N          a key holding more than N elements is big (default 1000000)
  --acl-user NAME               judge this ACL user's permissions (the application's) with ACL DRYRUN; default the
                                doctor's own user
  --lock-ttl-ms N               TTL of the lock self-test's key, ms (default 5000)
  --timeout-ms N                deadline of connecting and of each command, ms (default 2000)
  --json                        print the report as JSON ({ checks: [{ name, status, reason, evidence?, fix? }],
                                ok, exitCode }) instead of one line per check
  -h, --help                    print this help and exit

The password: in the URL or, better, in the REDISCLI_AUTH environment variable (argv is visible in ps). It is never
printed, and neither are command arguments (SLOWLOG entries are shown by command name and duration). The doctor
writes only two short-lived keys, PREFIX:doctor:lock:*, and deletes them.

exit codes:
  0  no check failed (warnings do not change it)
  1  a check failed
  2  bad arguments
`;

/** Parses the CLI arguments; throws a message for bad ones. */
export function parseDoctorArgs(argv: readonly string[], env: NodeJS.ProcessEnv): DoctorOptions & { json: boolean } {
  const options: DoctorOptions & { json: boolean } = { url: env.REDIS_URL, json: false, password: env.REDISCLI_AUTH || undefined };
  const number = (flag: string, value: string | undefined) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} expects a positive integer`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => argv[++i];
    switch (flag) {
      case '--url':
        options.url = value();
        break;
      case '--cluster':
        options.cluster = true;
        break;
      case '--prefix':
        options.keyPrefix = value() ?? '';
        break;
      case '--workload': {
        const workloads = (value() ?? '').split(',').filter(Boolean) as DoctorWorkload[];
        const unknown = workloads.filter((w) => !ALL_WORKLOADS.includes(w));
        if (unknown.length > 0 || workloads.length === 0) throw new Error(`--workload expects some of ${ALL_WORKLOADS.join(',')}`);
        options.workloads = workloads;
        break;
      }
      case '--sample-limit':
        options.scanSampleLimit = number(flag, value());
        break;
      case '--top':
        options.topKeys = number(flag, value());
        break;
      case '--big-key-bytes':
        options.bigKeyBytes = number(flag, value());
        break;
      case '--big-key-elements':
        options.bigKeyElements = number(flag, value());
        break;
      case '--acl-user': {
        const user = value();
        if (!user || user.startsWith('--')) throw new Error('--acl-user expects an ACL user name');
        options.aclUser = user;
        break;
      }
      case '--lock-ttl-ms':
        options.lockTtlMs = number(flag, value());
        break;
      case '--timeout-ms':
        options.timeoutMs = number(flag, value());
        break;
      case '--json':
        options.json = true;
        break;
      default:
        throw new Error(`unknown argument ${flag}`);
    }
  }
  if (options.url !== undefined && !/^rediss?:\/\//.test(options.url)) throw new Error('--url expects redis://… or rediss://…');
  return options;
}

/** Runs the doctor subcommand with its arguments and resolves its exit code. */
export async function doctorCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(DOCTOR_HELP);
    return 0;
  }
  let options: ReturnType<typeof parseDoctorArgs>;
  try {
    options = parseDoctorArgs(argv, env);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const report = await diagnose(options, { prefixHint: "if the application's keyPrefix is another, pass it with --prefix <keyPrefix>" });
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  return report.exitCode;
}
