import type { Scenario } from '../lib/scenario';
import { locksScenario } from './locks';
import { rateLimitSkewScenario } from './rate-limit-skew';
import { sentinelScenario } from './sentinel-failover';
import { clusterScenario } from './cluster-migration';
import { hostileScenario } from './hostile-input';
import { secretsScenario } from './secrets';
import { outageScenario } from './outage';
import { streamsCrashScenario } from './streams-crash';
import { shutdownScenario } from './shutdown';
import { networkScenario } from './network';
import { lockExpiryScenario } from './lock-expiry';
import { oomScenario } from './oom';
import { replayScenario } from './replay';
import { streamsSlowScenario } from './streams-slow';
import { pubsubSlowScenario } from './pubsub-slow';
import { coordinationScenario } from './coordination';
import { writeBehindCrashScenario } from './write-behind';

/** Every scenario, in the order the suite runs them. */
export const SCENARIOS: readonly Scenario[] = [
  locksScenario,
  lockExpiryScenario,
  coordinationScenario,
  replayScenario,
  oomScenario,
  rateLimitSkewScenario,
  sentinelScenario,
  clusterScenario,
  hostileScenario,
  secretsScenario,
  outageScenario,
  streamsCrashScenario,
  writeBehindCrashScenario,
  streamsSlowScenario,
  pubsubSlowScenario,
  networkScenario,
  shutdownScenario,
];
