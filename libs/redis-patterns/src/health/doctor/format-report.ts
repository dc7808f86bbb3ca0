import type { DoctorReport } from './doctor.types';

/**
 * One line per check (`PASS  name  reason`), the check's evidence and fix indented under it, and a summary line, for
 * terminals and CI logs.
 */
export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const indent = ' '.repeat(6 + width + 2);
  const lines = report.checks.flatMap((check) => [
    `${check.status.toUpperCase().padEnd(4)}  ${check.name.padEnd(width)}  ${check.reason}`,
    ...(check.evidence ?? []).map((line) => `${indent}· ${line}`),
    ...(check.fix ? [`${indent}fix: ${check.fix}`] : []),
  ]);
  const count = (status: string) => report.checks.filter((check) => check.status === status).length;
  lines.push(`${report.ok ? 'OK' : 'FAILED'}: ${count('pass')} pass, ${count('warn')} warn, ${count('fail')} fail`);
  return lines.join('\n');
}
