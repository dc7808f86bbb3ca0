import type { LoggerService } from '@nestjs/common';

/** A module `logger` that keeps the library's warnings and errors, so a spec can assert what was said and how often. */
export class CapturingLogger implements LoggerService {
  readonly warnings: string[] = [];
  readonly errors: string[] = [];
  log(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  error(message: unknown): void {
    this.errors.push(String(message));
  }
  debug(): void {}
}
