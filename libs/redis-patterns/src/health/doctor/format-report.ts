import type { DoctorReport } from './doctor.types';

/** One line per check (`PASS  name  reason`) and a summary line, for terminals and CI logs. */
export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = report.checks.map((check) => `${check.status.toUpperCase().padEnd(4)}  ${check.name.padEnd(width)}  ${check.reason}`);
  const count = (status: string) => report.checks.filter((check) => check.status === status).length;
  lines.push(`${report.ok ? 'OK' : 'FAILED'}: ${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail`);
  return lines.join('\n');
}
