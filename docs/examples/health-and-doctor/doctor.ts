import { formatReport, runDoctor } from 'nestjs-redis-patterns/doctor';

export async function doctor(): Promise<void> {
  const report = await runDoctor({
    url: process.env.REDIS_URL,
    password: process.env.REDISCLI_AUTH,
    keyPrefix: 'shop',
    workloads: ['cache'],
  });
  console.log(formatReport(report)); // report.checks: { name, status: 'pass' | 'warn' | 'fail', reason, evidence?, fix? }[]
  process.exitCode = report.exitCode;
}
