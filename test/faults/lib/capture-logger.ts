import type { LoggerService } from '@nestjs/common';

/** A LoggerService that keeps every line, for counting errors and grepping for secrets. */
export class CaptureLogger implements LoggerService {
  readonly lines: string[] = [];
  private record(level: string, message: unknown, rest: unknown[]): void {
    const text = [message, ...rest]
      .map((part) =>
        part instanceof Error ? `${part.name}: ${part.message}\n${part.stack}` : typeof part === 'string' ? part : JSON.stringify(part),
      )
      .join(' ');
    this.lines.push(`${level} ${text}`);
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.record('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.record('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.record('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.record('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.record('verbose', message, rest);
  }
  count(pattern: RegExp): number {
    return this.lines.filter((line) => pattern.test(line)).length;
  }
}
