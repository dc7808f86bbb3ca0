// `npm run bench [-- --quick] [--only cache,lock] [--contenders ours] [--out dir] [--rounds n] [--concurrency 1,8,64]`: runs every contender side by side on
// a private redis-server, interleaved in rounds, and writes RESULTS.md, results/results.json and results/ratios.svg.
import 'reflect-metadata';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from './lib/args';
import type { BenchGroup } from './lib/contender';
import { describeEnvironment } from './lib/environment';
import { PrivateRedis } from './lib/private-redis';
import { writePublished } from './lib/published-figures';
import type { BenchReport } from './lib/report-markdown';
import { brokenContenders, type GroupResult, runGroup } from './lib/runner';
import { CONTENDER_NOTES, METHOD } from './method';
import { SUITES } from './suites';
import { HEADLINE_CONCURRENCY } from './lib/sweep';
import { writeRun } from './lib/write-run';

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const redis = await PrivateRedis.start();
  const groups: GroupResult[] = [];
  const notes: string[] = [...CONTENDER_NOTES];
  const environment = describeEnvironment(await redis.version());
  log(`bench: ${args.quick ? 'quick' : 'full'} run, Redis ${environment.redis} on port ${redis.port}`);
  try {
    for (const suite of SUITES) {
      if (args.only.length && !args.only.includes(suite.id)) continue;
      for (const concurrency of suite.sweep ? args.sweep : [HEADLINE_CONCURRENCY]) {
        const group: BenchGroup = suite.create({ redis, quick: args.quick, http: args.http, concurrency });
        if (suite.sweep) {
          group.id = `${group.id}@${concurrency}`;
          group.concurrency = concurrency;
        }
        if (args.contenders.length) group.contenders = group.contenders.filter((c) => args.contenders.includes(c.id));
        log(`${group.title}${suite.sweep ? `, ${concurrency} caller${concurrency === 1 ? '' : 's'}` : ''}`);
        const plan = suite.plan?.(args) ?? (suite.sweep && concurrency !== HEADLINE_CONCURRENCY ? args.sweepPlan : args.plan);
        const result = await runGroup(group, redis, plan, log);
        groups.push(result);
        notes.push(...(suite.notes?.(result) ?? []));
      }
    }
  } finally {
    await redis.stop();
  }

  const report: BenchReport = { environment, mode: args.quick ? 'quick' : 'full', method: METHOD, groups, notes };
  const outDir = resolve(args.out ?? (args.quick ? join(tmpdir(), 'redis-patterns-bench-quick') : 'bench'));
  writeRun(outDir, report);
  // Only a complete full run with the default settings (no option at all) is the committed one the docs quote.
  if (process.argv.length === 2) {
    writePublished(join(__dirname, '..'), report);
    log('bench: docs/benchmarks.md and README.md figures regenerated from this run');
  }
  log(`\nbench: done in ${Math.round((Date.now() - started) / 1000)} s; report: ${join(outDir, 'RESULTS.md')}`);
  const missed = groups.flatMap((g) =>
    [...g.ratios, ...g.differences, ...g.minimums].filter((r) => r.met === false).map((r) => `${g.id}: ${r.label}`),
  );
  if (missed.length)
    log(`bench: targets missed by the rule, three quarters of the rounds (reported, not failing the run): ${missed.join('; ')}`);
  const broken = brokenContenders(groups);
  if (broken.length) {
    log(`bench: broken contenders (failing the run): ${broken.join('; ')}`);
    process.exitCode = 1;
  }
}

main().then(
  // Peer libraries may keep timers or sockets alive after their clients are closed; the report is written.
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
