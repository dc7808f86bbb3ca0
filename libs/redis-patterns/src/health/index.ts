// Public surface of this pattern: explicit named exports (`export type` for interfaces).
export { HEALTH_PROVIDERS } from './health.providers';
export { RedisPatternsHealthIndicator } from './redis-patterns-health.indicator';
export type { ConnectionHealth, RedisHealthCheckOptions, RedisHealthResult } from './health.types';
export type { NodeProbe } from './probe-node';
export { RedisHealthCheckError } from '../errors/redis-health-check.error';
export { runDoctor } from './doctor/run-doctor';
export { formatReport } from './doctor/format-report';
export { judgeEvictionPolicy } from './doctor/eviction-policy';
export { judgeLockProbe, lockSelfTest, probeLock } from './doctor/lock-self-test';
export type { LockJudge, LockProbe } from './doctor/lock-self-test';
export { ALL_WORKLOADS } from './doctor/doctor.types';
export type { DoctorCheck, DoctorOptions, DoctorReport, DoctorWorkload } from './doctor/doctor.types';
