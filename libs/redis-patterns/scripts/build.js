#!/usr/bin/env node
// Builds the package into dist/: tsc emits CommonJS without comments and with source maps (sources inlined, so the
// tarball ships no .ts files yet a stack trace or debugger shows them, comments included), then the .d.ts with
// their TSDoc; each entry gets an ES module wrapper that re-exports the CommonJS exports by name.
// One copy of the code for both module systems: an ESM and a CJS importer share the module's classes and DI tokens
// (no dual-package hazard).
'use strict';
const { execFileSync } = require('node:child_process');
const { chmodSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const ENTRIES = ['index', 'testing/index', 'adapters/index', 'doctor/index', 'health/index', 'messaging/index', 'structures/index'];

rmSync(dist, { recursive: true, force: true });
const tsc = (...args) =>
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), ...args], {
    stdio: 'inherit',
    cwd: root,
  });
tsc('--removeComments', '--declaration', 'false');
tsc('--emitDeclarationOnly');

for (const entry of ENTRIES) {
  const names = Object.keys(require(path.join(dist, `${entry}.js`))).filter((name) => name !== '__esModule' && name !== 'default');
  const base = path.basename(entry);
  const wrapper = [
    '// ES module entry: the CommonJS build, re-exported by name (one copy of every class and token).',
    `import cjs from './${base}.js';`,
    '',
    `export const { ${names.join(', ')} } = cjs;`,
    '',
  ].join('\n');
  writeFileSync(path.join(dist, `${entry}.mjs`), wrapper);
}
chmodSync(path.join(dist, 'cli.js'), 0o755);
process.stderr.write(
  `Built ${path.relative(process.cwd(), dist) || 'dist'}: ${ENTRIES.map((e) => `${e}.js + ${e}.mjs`).join(', ')}, cli.js\n`,
);
