import type { Scenario } from '../lib/scenario';
import { locksScenario } from './locks';

/** Every scenario, in the order the suite runs them. */
export const SCENARIOS: readonly Scenario[] = [locksScenario];
