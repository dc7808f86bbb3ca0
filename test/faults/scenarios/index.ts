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

/** Every scenario, in the order the suite runs them. */
export const SCENARIOS: readonly Scenario[] = [
  locksScenario,
  rateLimitSkewScenario,
  sentinelScenario,
  clusterScenario,
  hostileScenario,
  secretsScenario,
  outageScenario,
  streamsCrashScenario,
  shutdownScenario,
];
