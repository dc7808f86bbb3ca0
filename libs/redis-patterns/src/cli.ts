#!/usr/bin/env node
/**
 * The package's command, `nestjs-redis-patterns <command>`. Commands: `doctor` (see health/doctor.cli.ts). Exit
 * codes: the command's own (doctor: 0 healthy, 1 a check failed, 2 bad arguments); 2 for an unknown command; 0 for
 * `--help`.
 */
import { doctorCommand } from './health/doctor.cli';

const USAGE = 'usage: nestjs-redis-patterns doctor --url redis://host:port[/db] [options]   (doctor --help for the options)';

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'doctor') return doctorCommand(rest, process.env);
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  process.stderr.write(`${command === undefined ? 'a command is required' : `unknown command "${command}"`}\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    // Only the error's name: a message may echo a URL with its password.
    process.stderr.write(`nestjs-redis-patterns crashed: ${(error as Error).name}\n`);
    process.exitCode = 2;
  },
);
