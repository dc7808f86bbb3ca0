import type { CompiledPolicies } from './compile-policies';
import type { RateLimitDecision } from './rate-limit-policy';

/**
 * The response headers of a decision, following draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` lists
 * every policy (`"name";q=<quota>;w=<window s>`), `RateLimit` the state of each (`"name";r=<remaining>;t=<reset s>`),
 * and `Retry-After` (seconds) on a denial. `legacy` adds `X-RateLimit-Limit/Remaining/Reset` for the reported policy.
 */
export function rateLimitHeaders(decision: RateLimitDecision, compiled: CompiledPolicies, legacy: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'RateLimit-Policy': compiled.policyHeader };
  // A fail-open decision knows nothing about the real state: advertise the policy only.
  if (decision.source !== 'fail-open') {
    let value = '';
    for (let i = 0; i < decision.policies.length; i++) {
      const state = decision.policies[i];
      value += `${i ? ', ' : ''}"${compiled.policies[i].name}";r=${state.remaining};t=${Math.ceil(state.resetMs / 1000)}`;
    }
    headers.RateLimit = value;
    if (legacy) {
      headers['X-RateLimit-Limit'] = String(decision.limit);
      headers['X-RateLimit-Remaining'] = String(decision.remaining);
      headers['X-RateLimit-Reset'] = String(Math.ceil(decision.resetMs / 1000));
    }
  }
  if (!decision.allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  return headers;
}
