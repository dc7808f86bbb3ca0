// The fault and attack suite (issue 10): runs every scenario in turn against redis servers of its own, each under
// its own deadline, prints one JSON line per scenario, writes test/faults/REPORT.md and report.jsonl, and exits 1
// if any promise failed. Usage: node -r ./scripts/register-ts.js test/faults/run.ts [--only id,id] [--list]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { now } from './lib/measure';
import { jsonLine, renderMarkdown, type ScenarioOutcome, writeReport } from './lib/report';
import type { Scenario, ScenarioContext } from './lib/scenario';
import { SCENARIOS } from './scenarios';

/** The whole suite must stay well under the 15 minutes CI gives it. */
const SUITE_BUDGET_MS = 14 * 60_000;

// ioredis can throw from its own callbacks (see the CLUSTER and OUTAGE figures): such an exception is a failure of
// the scenario that provoked it, recorded as one, not the end of the suite.
const uncaught: string[] = [];
process.on('uncaughtException', (error) => uncaught.push(`${error.name}: ${error.message} ${error.stack?.split('\n')[1]?.trim() ?? ''}`));
process.on('unhandledRejection', (error) =>
  uncaught.push(`unhandled rejection: ${error instanceof Error ? error.message : String(error)}`),
);

async function runScenario(scenario: Scenario, root: string): Promise<ScenarioOutcome> {
  const uncaughtBefore = uncaught.length;
  const dir = join(root, scenario.id);
  const controller = new AbortController();
  const cleanups: Array<() => Promise<void> | void> = [];
  const figures: Record<string, unknown> = {};
  const context: ScenarioContext = {
    dir,
    signal: controller.signal,
    figures,
    defer: (cleanup) => cleanups.push(cleanup),
    log: (message) => process.stderr.write(`[${scenario.id} ${((now() - started) / 1000).toFixed(1)}s] ${message}\n`),
  };
  const started = now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`deadline of ${scenario.deadlineMs / 1000} s exceeded`));
    }, scenario.deadlineMs);
  });
  let outcome: ScenarioOutcome;
  try {
    const checks = await Promise.race([scenario.run(context), deadline]);
    outcome = { id: scenario.id, title: scenario.title, checks, figures, durationMs: now() - started, deadlineMs: scenario.deadlineMs };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    outcome = {
      id: scenario.id,
      title: scenario.title,
      checks: [{ promise: 'scenario completes within its deadline', figure: `error: ${message.slice(0, 300)}`, pass: false }],
      figures,
      durationMs: now() - started,
      deadlineMs: scenario.deadlineMs,
      error: message,
    };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  const thrown = uncaught.slice(uncaughtBefore);
  if (thrown.length > 0) {
    outcome.checks.push({
      promise: 'no uncaught exception in the process running the scenario',
      figure: `${thrown.length} uncaught, e.g. ${thrown[0].slice(0, 200)}`,
      pass: false,
    });
  }
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      context.log(`cleanup failed: ${(error as Error).message}`);
    }
  }
  return outcome;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--list')) {
    for (const s of SCENARIOS) process.stdout.write(`${s.id}\t${s.deadlineMs / 1000}s\t${s.title}\n`);
    return;
  }
  const onlyIndex = args.indexOf('--only');
  const only = onlyIndex >= 0 ? new Set(args[onlyIndex + 1]?.split(',')) : undefined;
  const selected = SCENARIOS.filter((s) => !only || only.has(s.id));
  const planned = selected.reduce((sum, s) => sum + s.deadlineMs, 0);
  if (planned > SUITE_BUDGET_MS) throw new Error(`scenario deadlines add up to ${planned / 1000} s, over the suite budget`);
  const redis =
    execFileSync('redis-server', ['--version'])
      .toString()
      .match(/v=(\S+)/)?.[1] ?? 'unknown';
  const root = mkdtempSync(join(tmpdir(), 'rp-faults-'));
  const startedAt = new Date().toISOString();
  const suiteStart = now();
  const outcomes: ScenarioOutcome[] = [];
  try {
    for (const scenario of selected) {
      process.stderr.write(`== ${scenario.id}: ${scenario.title} (deadline ${scenario.deadlineMs / 1000} s)\n`);
      const outcome = await runScenario(scenario, root);
      outcomes.push(outcome);
      process.stdout.write(`${jsonLine(outcome, redis)}\n`);
      for (const c of outcome.checks) process.stderr.write(`   ${c.pass ? 'PASS' : 'FAIL'}  ${c.promise}: ${c.figure}\n`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const totalMs = now() - suiteStart;
  const here = __dirname;
  if (!only) {
    writeReport(join(here, 'REPORT.md'), renderMarkdown(outcomes, { redis, startedAt, totalMs }));
    writeReport(join(here, 'report.jsonl'), outcomes.map((o) => jsonLine(o, redis)).join('\n') + '\n');
  } else {
    writeReport(join(root + '-partial.md'), renderMarkdown(outcomes, { redis, startedAt, totalMs }));
    process.stderr.write(`partial run: report in ${root}-partial.md (REPORT.md is only written by a full run)\n`);
  }
  const failed = outcomes.flatMap((o) => o.checks).filter((c) => !c.pass);
  process.stderr.write(`\n${outcomes.length} scenarios, ${failed.length} failed promises, ${(totalMs / 1000).toFixed(1)} s\n`);
  process.exitCode = failed.length > 0 ? 1 : 0;
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 2;
  })
  // Sockets of frozen or killed servers, sentinel watchers and the like must not keep the suite alive.
  .finally(() => setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref());
