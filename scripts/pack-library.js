#!/usr/bin/env node
// `npm run pack:lib`: the install route while the package is not on a registry. From a fresh clone it installs the
// repository's dependencies when they are missing (the build needs TypeScript from them), builds
// libs/redis-patterns and packs it into dist/pack/, then prints the `npm install` line for that tarball.
// `node scripts/pack-library.js --out <dir>` packs somewhere else; `require('./pack-library').packLibrary(dir)` does
// the same from another script and returns the tarball's path and npm's pack report.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const libDir = path.join(root, 'libs/redis-patterns');
const DEFAULT_DESTINATION = path.join(root, 'dist/pack');
const STEP_TIMEOUT_MS = 10 * 60_000;

/** True when the build's tools resolve from the repository root (a fresh clone has no node_modules). */
function dependenciesInstalled() {
  try {
    require.resolve('typescript/bin/tsc', { paths: [root] });
    return existsSync(path.join(root, 'node_modules', '.package-lock.json'));
  } catch {
    return false;
  }
}

function run(command, args, options = {}) {
  process.stderr.write(`> ${command} ${args.join(' ')}\n`);
  return execFileSync(command, args, { cwd: root, timeout: STEP_TIMEOUT_MS, ...options });
}

/**
 * Installs the root dependencies if needed, builds the library and packs it into `destination` (emptied of older
 * tarballs of the package first, so the one left there is this build's).
 */
function packLibrary(destination = DEFAULT_DESTINATION) {
  if (!dependenciesInstalled()) run('npm', ['ci', '--no-audit', '--no-fund'], { stdio: ['ignore', 2, 2] });
  run(process.execPath, [path.join(libDir, 'scripts/build.js')], { stdio: ['ignore', 2, 2] });
  mkdirSync(destination, { recursive: true });
  const { name, version } = require(path.join(libDir, 'package.json'));
  rmSync(path.join(destination, `${name}-${version}.tgz`), { force: true });
  // The build above is the one packed: the package's own prepack (a second build) is skipped.
  const output = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], {
    cwd: libDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 2],
  });
  const [info] = JSON.parse(output);
  const tarball = path.join(destination, info.filename);
  if (!existsSync(tarball)) throw new Error(`npm pack reported ${info.filename} but ${tarball} does not exist`);
  return { tarball, info };
}

function destinationFromArgs(argv) {
  const at = argv.indexOf('--out');
  if (at < 0) return DEFAULT_DESTINATION;
  if (!argv[at + 1]) throw new Error('--out needs a directory');
  return path.resolve(argv[at + 1]);
}

if (require.main === module) {
  try {
    const { tarball, info } = packLibrary(destinationFromArgs(process.argv.slice(2)));
    process.stderr.write(`packed ${info.filename}: ${info.entryCount} files, ${(info.size / 1024).toFixed(0)} kB\n`);
    process.stdout.write(
      [
        `Tarball: ${tarball}`,
        'Install it in your application:',
        `  npm install ${tarball} ioredis`,
        'In an empty directory, add the peers a fresh app lacks:',
        `  npm install ${tarball} ioredis @nestjs/common @nestjs/core @nestjs/platform-express reflect-metadata rxjs`,
        '',
      ].join('\n'),
    );
  } catch (error) {
    process.stderr.write(`pack:lib failed: ${error.message}\n`);
    process.exit(1);
  }
}

module.exports = { packLibrary };
