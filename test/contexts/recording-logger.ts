import type { LoggerService } from '@nestjs/common';

/** A logger that keeps what it is told, for assertions on what a context logs (and at which level). */
export class RecordingLogger implements LoggerService {
  readonly entries: Array<{ level: 'log' | 'error' | 'warn' | 'debug' | 'verbose'; message: string }> = [];

  log(message: unknown): void {
    this.entries.push({ level: 'log', message: String(message) });
  }

  error(message: unknown): void {
    this.entries.push({ level: 'error', message: message instanceof Error ? `${message.name}: ${message.message}` : String(message) });
  }

  warn(message: unknown): void {
    this.entries.push({ level: 'warn', message: String(message) });
  }

  debug(message: unknown): void {
    this.entries.push({ level: 'debug', message: String(message) });
  }

  verbose(message: unknown): void {
    this.entries.push({ level: 'verbose', message: String(message) });
  }

  at(level: 'error' | 'warn'): string[] {
    return this.entries.filter((entry) => entry.level === level).map((entry) => entry.message);
  }
}
