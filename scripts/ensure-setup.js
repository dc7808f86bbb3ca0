#!/usr/bin/env node
// Installs what a fresh Debian/Ubuntu machine lacks before the sample API or the tests run: the npm dependencies
// (npm ci), redis-server / redis-sentinel / redis-tools, and for the tests chromium (apt-get, as root or with sudo).
// Without permission to install, it stops with a message saying exactly what to install.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const REDIS_BINARIES = { 'redis-server': 'redis-server', 'redis-sentinel': 'redis-sentinel', 'redis-cli': 'redis-tools' };
// The status page test drives Debian's chromium (playwright-core cannot download a browser here).
const TEST_BINARIES = { ...REDIS_BINARIES, chromium: 'chromium' };

function has(binary) {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

function run(command, args, options = {}) {
  console.log(`> ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: 'inherit', cwd: root, ...options });
}

function ensureSystemPackages(binaries) {
  const missing = [
    ...new Set(
      Object.entries(binaries)
        .filter(([bin]) => !has(bin))
        .map(([, pkg]) => pkg),
    ),
  ];
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = !isRoot && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if (!has('apt-get') || (!isRoot && !sudo)) {
    console.error(
      `Missing: ${missing.join(', ')}. Install them (Debian/Ubuntu: "sudo apt-get install -y ${missing.join(' ')}"; ` +
        'macOS: "brew install redis"), then run this command again. The sample API can also use an existing server: set REDIS_URL.',
    );
    process.exit(1);
  }
  const prefix = sudo ? ['sudo', '-n'] : [];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run(prefix[0] ?? 'apt-get', [...prefix.slice(1), ...(sudo ? ['apt-get'] : []), 'update', '-qq'], { env });
  run(prefix[0] ?? 'apt-get', [...prefix.slice(1), ...(sudo ? ['apt-get'] : []), 'install', '-y', '-qq', ...missing], { env });
}

function ensureDependencies() {
  if (existsSync(path.join(root, 'node_modules', '.package-lock.json'))) return;
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

ensureDependencies();
if (process.argv.includes('--test')) ensureSystemPackages(TEST_BINARIES);
else if (!process.env.REDIS_URL) ensureSystemPackages(REDIS_BINARIES);
