// Runs the TypeScript sources directly (doctor, benchmarks, test fixtures): compiles .ts files with swc on require,
// with the same settings as the test transform, and resolves the package name `nestjs-redis-patterns` (and the
// `@app/redis-patterns` path alias) to the library's sources.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '..');
const libRoot = path.join(root, 'libs/redis-patterns/src');
const options = require('../swc.config');

require.extensions['.ts'] = function compileTs(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveAlias(request, ...rest) {
  for (const name of ['nestjs-redis-patterns', '@app/redis-patterns']) {
    if (request === name || request.startsWith(`${name}/`)) {
      request = path.join(libRoot, request.slice(name.length));
      break;
    }
  }
  return resolve.call(this, request, ...rest);
};
