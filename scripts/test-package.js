#!/usr/bin/env node
// `npm run test:package`: builds and packs libs/redis-patterns, then installs the tarball into fresh applications
// outside the repository (temporary directories, a real `npm install` from the registry, no links) and runs the
// scenario of test/package/scenario.cjs in each. The apps span both ends of the peer ranges and both module systems.
// The TypeScript apps also type-check every file of docs/examples as their own code (a CommonJS and an ES module
// consumer, importing 'nestjs-redis-patterns' from the tarball), so what the docs print compiles where users paste it.
// PACKAGE_APPS=<dir>[,<dir>] runs only those apps (the server matrix runs the smoke app against each server build).
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const libDir = path.join(root, 'libs/redis-patterns');
const fixtures = path.join(root, 'test/package');
const docExamples = path.join(root, 'docs/examples');
const ALL_APPS = [
  { dir: 'cjs-nest11-express', build: true, main: 'dist/main.js', examples: true },
  { dir: 'esm-nest12-fastify', build: true, main: 'dist/main.js', examples: true },
  { dir: 'js-esm-nest12', build: false, main: 'main.mjs' },
];
const only = process.env.PACKAGE_APPS?.split(',').map((dir) => dir.trim());
const APPS = only ? ALL_APPS.filter((app) => only.includes(app.dir)) : ALL_APPS;
if (only && APPS.length !== only.length) {
  console.error(`PACKAGE_APPS names an unknown app: ${only.join(', ')} (known: ${ALL_APPS.map((app) => app.dir).join(', ')})`);
  process.exit(1);
}
const STEP_TIMEOUT_MS = 5 * 60_000;

function run(command, args, cwd) {
  console.log(`> (${path.relative(root, cwd) || '.'}) ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit', timeout: STEP_TIMEOUT_MS });
}

const work = mkdtempSync(path.join(tmpdir(), 'nestjs-redis-patterns-consumers-'));
let failed = 0;
try {
  const packed = execFileSync('npm', ['pack', '--pack-destination', work, '--json'], {
    cwd: libDir,
    encoding: 'utf8',
    timeout: STEP_TIMEOUT_MS,
  });
  const [info] = JSON.parse(packed);
  const tarball = path.join(work, info.filename);
  console.log(
    `packed ${info.filename}: ${(statSync(tarball).size / 1024).toFixed(0)} kB, ${info.entryCount} files, ${(info.unpackedSize / 1024).toFixed(0)} kB unpacked`,
  );
  const sources = info.files.filter((file) => /\.ts$/.test(file.path) && !/\.d\.ts$/.test(file.path));
  if (sources.length > 0 || info.files.some((file) => /(^|\/)(test|apps|bench)\//.test(file.path) || /\.spec\./.test(file.path))) {
    throw new Error(`the tarball holds sources or tests: ${sources.map((f) => f.path).join(', ')}`);
  }
  for (const app of APPS) {
    const dir = path.join(work, app.dir);
    cpSync(path.join(fixtures, app.dir), dir, { recursive: true });
    cpSync(path.join(fixtures, 'scenario.cjs'), path.join(dir, 'scenario.cjs'));
    cpSync(path.join(fixtures, 'scenario.d.cts'), path.join(dir, 'scenario.d.cts'));
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    manifest.dependencies['nestjs-redis-patterns'] = `file:${tarball}`;
    writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    try {
      run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], dir);
      if (app.build) run('npm', ['run', 'build'], dir);
      if (app.examples) {
        cpSync(docExamples, path.join(dir, 'examples'), { recursive: true });
        run('npm', ['run', 'typecheck:examples'], dir);
      }
      const result = spawnSync(process.execPath, [app.main], { cwd: dir, stdio: 'inherit', timeout: STEP_TIMEOUT_MS });
      if (result.status !== 0) throw new Error(`${app.dir} exited with ${result.status ?? result.signal}`);
    } catch (error) {
      failed++;
      console.error(`FAIL ${app.dir}: ${error.message}`);
    }
  }
} finally {
  if (failed === 0) rmSync(work, { recursive: true, force: true });
  else console.error(`kept ${work} for inspection`);
}
console.log(`${APPS.length - failed} consumer apps passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
