import type { CompiledPolicies } from './compile-policies';
import type { PolicyState, RateLimitDecision } from './rate-limit-policy';

/**
 * Turns the script's reply (`[allowed, then per policy remaining, resetMs, retryAfterMs]`) into a decision that
 * reports the most restrictive policy: on a denial the one with the longest wait, otherwise the one with the fewest
 * remaining units (ties: the later reset).
 */
export function toDecision(reply: readonly number[], compiled: CompiledPolicies, source: RateLimitDecision['source']): RateLimitDecision {
  const allowed = reply[0] === 1;
  const count = compiled.policies.length;
  const policies: PolicyState[] = new Array(count);
  let pick = 0;
  for (let i = 0; i < count; i++) {
    const state: PolicyState = {
      limit: compiled.policies[i].limit,
      remaining: Number(reply[1 + 3 * i]),
      resetMs: Number(reply[2 + 3 * i]),
      retryAfterMs: Number(reply[3 + 3 * i]),
    };
    policies[i] = state;
    if (i === 0) continue;
    const best = policies[pick];
    if (
      allowed
        ? state.remaining < best.remaining || (state.remaining === best.remaining && state.resetMs > best.resetMs)
        : state.retryAfterMs > best.retryAfterMs
    ) {
      pick = i;
    }
  }
  const reported = policies[pick];
  return {
    allowed,
    limit: reported.limit,
    remaining: reported.remaining,
    resetMs: reported.resetMs,
    retryAfterMs: reported.retryAfterMs,
    policyIndex: pick,
    policies,
    source,
  };
}

/** The decision of a fail-open limiter: allowed, state unknown (reported as full). */
export function failOpenDecision(compiled: CompiledPolicies): RateLimitDecision {
  const policies = compiled.policies.map((p) => ({ limit: p.limit, remaining: p.limit, resetMs: 0, retryAfterMs: 0 }));
  return { allowed: true, ...policies[0], policyIndex: 0, policies, source: 'fail-open' };
}
