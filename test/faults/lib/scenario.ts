/** One promise of a scenario, with the figure measured and whether the promise held. */
export interface Check {
  readonly promise: string;
  readonly figure: string;
  readonly pass: boolean;
}

/** What a scenario gets from the runner. */
export interface ScenarioContext {
  /** A directory of its own for redis-server data, sentinel configs and logs. */
  readonly dir: string;
  /** Aborted when the scenario's deadline passes; long loops should stop when it is. */
  readonly signal: AbortSignal;
  /** Registers cleanup (stop servers, kill children) that the runner runs even after a deadline. */
  defer(cleanup: () => Promise<void> | void): void;
  /** Progress line on stderr (the report goes to stdout and REPORT.md). */
  log(message: string): void;
  /** Raw figures for the scenario's JSON line. */
  readonly figures: Record<string, unknown>;
}

/** A fault scenario: one file each, its own deadline, one or more checks. */
export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly deadlineMs: number;
  run(context: ScenarioContext): Promise<Check[]>;
}

/** A check whose figure is `value` and which holds when `pass` is true. */
export function check(promise: string, figure: string, pass: boolean): Check {
  return { promise, figure, pass };
}
