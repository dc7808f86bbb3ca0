import type { Scenario } from '../lib/scenario';
import { locksScenario } from './locks';
import { rateLimitSkewScenario } from './rate-limit-skew';
import { sentinelScenario } from './sentinel-failover';

/** Every scenario, in the order the suite runs them. */
export const SCENARIOS: readonly Scenario[] = [locksScenario, rateLimitSkewScenario, sentinelScenario];
