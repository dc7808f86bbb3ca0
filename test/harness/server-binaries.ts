/**
 * The server and CLI executables every test process starts: Debian's `redis-server` and `redis-cli` on the PATH, or
 * another implementation chosen by `REDIS_SERVER_BIN` and `REDIS_CLI_BIN` (scripts/test-servers.js runs the behaviour
 * and contexts specs once per server of the compatibility matrix). Sentinels are the server binary with `--sentinel`.
 */
export const SERVER_BIN = process.env.REDIS_SERVER_BIN || 'redis-server';
export const CLI_BIN = process.env.REDIS_CLI_BIN || 'redis-cli';
