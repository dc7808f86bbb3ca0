// `nestjs-redis-patterns/doctor`: the checks of `npx nestjs-redis-patterns doctor`, to run from code (a deploy
// script, a readiness job) or from a running application with its own connections.
export { runDoctor } from '../health/doctor/run-doctor';
export { RedisPatternsDoctor } from '../health/redis-patterns-doctor';
export type { RedisPatternsDoctorOptions } from '../health/redis-patterns-doctor';
export { formatReport } from '../health/doctor/format-report';
export type { DoctorCheck, DoctorOptions, DoctorReport, DoctorWorkload } from '../health/doctor/doctor.types';
