import type { INestApplicationContext } from '@nestjs/common';
import { formatReport, RedisPatternsDoctor } from 'nestjs-redis-patterns/doctor';

export async function doctorFromTheApplication(app: INestApplicationContext): Promise<void> {
  const report = await app.get(RedisPatternsDoctor).run({ workloads: ['cache', 'locks'] });
  console.log(formatReport(report));
}
