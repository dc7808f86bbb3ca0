import { closedLoop } from './closed-loop';
import type { Contender } from './contender';

/** A library-level contender: `op` runs from `concurrency` workers in a closed loop; `probe` is one `op` call. */
export function libraryContender(spec: {
  id: string;
  label: string;
  concurrency: number;
  op: (worker: number, i: number) => Promise<unknown>;
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
}): Contender {
  let probes = 0;
  return {
    id: spec.id,
    label: spec.label,
    setup: spec.setup,
    teardown: spec.teardown,
    run: (durationMs) => closedLoop(spec.op, spec.concurrency, durationMs),
    probe: () => spec.op(0, 1_000_000 + probes++),
  };
}

/** A contender that cannot run here, with the reason shown in the report instead of numbers. */
export function unavailableContender(id: string, label: string, reason: string): Contender {
  return { id, label, unavailable: reason, run: () => Promise.reject(new Error(reason)) };
}
