// The fault and attack suite (issue 10): runs every scenario in turn against redis servers of its own, each under
// its own deadline, prints one JSON line per scenario, writes test/faults/REPORT.md and report.jsonl, and exits 1
// if any promise failed. Usage: node -r ./scripts/register-ts.js test/faults/run.ts [--quick] [--only id,id] [--list]
// --quick is what CI runs (fewer repetitions, the same bounds); the committed REPORT.md is a full run.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { now } from './lib/measure';
import { REPO_ROOT } from './lib/child';
import { writePublished } from './lib/published-figures';
import { jsonLine, missingCoverage, renderMarkdown, type ScenarioOutcome, verdict, writeReport } from './lib/report';
import { broken, check, type Scenario, type ScenarioContext } from './lib/scenario';
import { SCENARIOS } from './scenarios';

/**
 * Scenario deadlines may add up to this much (a deadline is a scenario's worst case, two to three times its usual
 * run): a quick run must fit the 17 minutes CI gives this suite (it usually takes 7), a full run is made by hand for
 * the committed report.
 */
const SUITE_BUDGET_MS = { quick: 17 * 60_000, full: 35 * 60_000 };

// ioredis can throw from its own callbacks (see the CLUSTER and OUTAGE figures): such an exception is a failure of
// the scenario that provoked it, recorded as one, not the end of the suite.
const uncaught: string[] = [];
process.on('uncaughtException', (error) => uncaught.push(`${error.name}: ${error.message} ${error.stack?.split('\n')[1]?.trim() ?? ''}`));
process.on('unhandledRejection', (error) =>
  uncaught.push(`unhandled rejection: ${error instanceof Error ? error.message : String(error)}`),
);

async function runScenario(scenario: Scenario, root: string, quick: boolean): Promise<ScenarioOutcome> {
  const uncaughtBefore = uncaught.length;
  const dir = join(root, scenario.id);
  const controller = new AbortController();
  const cleanups: Array<() => Promise<void> | void> = [];
  const figures: Record<string, unknown> = {};
  const context: ScenarioContext = {
    dir,
    quick,
    signal: controller.signal,
    figures,
    defer: (cleanup) => cleanups.push(cleanup),
    log: (message) => process.stderr.write(`[${scenario.id} ${((now() - started) / 1000).toFixed(1)}s] ${message}\n`),
  };
  const started = now();
  const deadlineMs = deadlineOf(scenario, quick);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`deadline of ${deadlineMs / 1000} s exceeded`));
    }, deadlineMs);
  });
  let outcome: ScenarioOutcome;
  try {
    const checks = await Promise.race([scenario.run(context), deadline]);
    outcome = { id: scenario.id, title: scenario.title, checks, figures, durationMs: now() - started, deadlineMs };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    outcome = {
      id: scenario.id,
      title: scenario.title,
      checks: [check('harness', 'scenario completes within its deadline', `error: ${message.slice(0, 300)}`, false)],
      figures,
      durationMs: now() - started,
      deadlineMs,
      error: message,
    };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  const thrown = uncaught.slice(uncaughtBefore);
  if (thrown.length > 0) {
    outcome.checks.push(
      check(
        'harness',
        'no uncaught exception in the process running the scenario',
        `${thrown.length} uncaught, e.g. ${thrown[0].slice(0, 200)}`,
        false,
      ),
    );
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

const deadlineOf = (scenario: Scenario, quick: boolean): number =>
  quick ? (scenario.quickDeadlineMs ?? scenario.deadlineMs) : scenario.deadlineMs;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  if (args.includes('--list')) {
    for (const s of SCENARIOS) process.stdout.write(`${s.id}\t${deadlineOf(s, quick) / 1000}s\t${s.title}\n`);
    return;
  }
  const onlyIndex = args.indexOf('--only');
  const only = onlyIndex >= 0 ? new Set(args[onlyIndex + 1]?.split(',')) : undefined;
  const selected = SCENARIOS.filter((s) => !only || only.has(s.id));
  const planned = selected.reduce((sum, s) => sum + deadlineOf(s, quick), 0);
  if (planned > SUITE_BUDGET_MS[quick ? 'quick' : 'full'])
    throw new Error(`scenario deadlines add up to ${planned / 1000} s, over the suite budget`);
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
      process.stderr.write(`== ${scenario.id}: ${scenario.title} (deadline ${deadlineOf(scenario, quick) / 1000} s)\n`);
      const outcome = await runScenario(scenario, root, quick);
      outcomes.push(outcome);
      process.stdout.write(`${jsonLine(outcome, redis)}\n`);
      for (const c of outcome.checks) process.stderr.write(`   ${verdict(c.kind, c.pass)}  [${c.ref}] ${c.promise}: ${c.figure}\n`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const totalMs = now() - suiteStart;
  const meta = { redis, startedAt, totalMs, mode: quick ? ('quick' as const) : ('full' as const) };
  const markdown = renderMarkdown(outcomes, meta);
  const jsonl = outcomes.map((o) => jsonLine(o, redis)).join('\n') + '\n';
  // Only a whole full run replaces the committed report (README and docs figures are generated from it); a quick
  // run (CI) writes its own next to the test results, a partial run to /tmp.
  if (!only && !quick) {
    writeReport(join(__dirname, 'REPORT.md'), markdown);
    writeReport(join(__dirname, 'report.jsonl'), jsonl);
    writePublished(REPO_ROOT, outcomes);
  } else if (!only) {
    const dir = join(REPO_ROOT, 'test-results');
    mkdirSync(dir, { recursive: true });
    writeReport(join(dir, 'faults-quick.md'), markdown);
    writeReport(join(dir, 'faults-quick.jsonl'), jsonl);
    process.stderr.write(`quick run: report in test-results/faults-quick.md (REPORT.md is only written by a full run)\n`);
  } else {
    writeReport(`${root}-partial.md`, markdown);
    process.stderr.write(`partial run: report in ${root}-partial.md (REPORT.md is only written by a full run)\n`);
  }
  const failed = outcomes.flatMap((o) => o.checks).filter(broken);
  // A whole run must answer every catalogue entry it claims; a partial run cannot.
  const missing = only ? [] : missingCoverage(outcomes);
  process.stderr.write(
    `\n${outcomes.length} scenarios, ${failed.length} failed promises, ${missing.length} catalogue entries missing` +
      `${missing.length ? ` (${missing.join(', ')})` : ''}, ${(totalMs / 1000).toFixed(1)} s\n`,
  );
  process.exitCode = failed.length > 0 || missing.length > 0 ? 1 : 0;
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 2;
  })
  // Sockets of frozen or killed servers, sentinel watchers and the like must not keep the suite alive.
  .finally(() => setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref());
