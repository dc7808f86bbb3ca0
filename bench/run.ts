// `npm run bench [-- --quick] [--only cache,lock] [--contenders ours] [--out dir] [--rounds n]`: runs every contender side by side on
// a private redis-server, interleaved in rounds, and writes RESULTS.md, results/results.json and results/ratios.svg.
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from './lib/args';
import type { BenchGroup } from './lib/contender';
import { describeEnvironment } from './lib/environment';
import { PrivateRedis } from './lib/private-redis';
import { type BenchReport, renderMarkdown } from './lib/report-markdown';
import { renderRatioChart } from './lib/report-svg';
import { type GroupResult, runGroup } from './lib/runner';
import { CONTENDER_NOTES, METHOD } from './method';
import { SUITES } from './suites';

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
      const group: BenchGroup = suite.create({ redis, quick: args.quick, http: args.http });
      if (args.contenders.length) group.contenders = group.contenders.filter((c) => args.contenders.includes(c.id));
      log(`${group.title}`);
      const result = await runGroup(group, redis, suite.plan?.(args) ?? args.plan, log);
      groups.push(result);
      notes.push(...(suite.notes?.(result) ?? []));
    }
  } finally {
    await redis.stop();
  }

  const report: BenchReport = { environment, mode: args.quick ? 'quick' : 'full', method: METHOD, groups, notes };
  const outDir = resolve(args.out ?? (args.quick ? join(tmpdir(), 'redis-patterns-bench-quick') : 'bench'));
  const resultsDir = join(outDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'results.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(join(resultsDir, 'ratios.svg'), renderRatioChart(groups));
  const markdown = renderMarkdown(report, relative(outDir, join(resultsDir, 'ratios.svg')));
  writeFileSync(join(outDir, 'RESULTS.md'), markdown);
  log(`\nbench: done in ${Math.round((Date.now() - started) / 1000)} s; report: ${join(outDir, 'RESULTS.md')}`);
  const missed = groups.flatMap((g) => [...g.ratios, ...g.minimums].filter((r) => r.met === false).map((r) => `${g.id}: ${r.label}`));
  if (missed.length) log(`bench: targets missed (reported, not failing the run): ${missed.join('; ')}`);
}

main().then(
  // Peer libraries may keep timers or sockets alive after their clients are closed; the report is written.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
