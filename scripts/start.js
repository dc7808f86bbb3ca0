#!/usr/bin/env node
// `npm start`: installs what is missing, builds the sample API and runs it. Without REDIS_URL the API starts a
// throwaway local redis-server itself; PORT sets the HTTP port (default 3000).
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
execFileSync(process.execPath, [path.join(__dirname, 'ensure-setup.js')], { stdio: 'inherit', cwd: root });
execFileSync('npx', ['nest', 'build', 'sample-api'], { stdio: 'inherit', cwd: root });
const app = spawn(process.execPath, [path.join(root, 'dist/apps/sample-api/apps/sample-api/src/main.js')], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => app.kill(signal));
// `npm start` killed with SIGTERM exits without passing the signal on; this process is then re-parented. Stop the
// API (and with it the throwaway redis-server it started) rather than leave both running unowned.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) app.kill('SIGTERM');
}, 500).unref();
app.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
