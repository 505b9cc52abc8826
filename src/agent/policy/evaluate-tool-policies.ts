/** Tool policies: for each approval label, the first enabled policy (highest priority first) whose glob matches wins. */
import type { PolicyAction, ToolPolicy } from '../../storage/policy-store.js';
import { globMatches } from './label-glob.js';

/**
 * Evaluates labels against policies already ordered by priority (highest first, ties in insertion order).
 * Unknown actions count as `ask`; `undefined` means no policy matched.
 */
export function evaluateToolPolicies(
  policies: readonly ToolPolicy[],
  labels: readonly string[],
): Array<PolicyAction | undefined> {
  const active = policies.filter((policy) => policy.enabled);
  return labels.map((label) => {
    const match = active.find((policy) => globMatches(policy.toolPattern, label));
    if (match === undefined) return undefined;
    return match.action === 'allow' || match.action === 'deny' ? match.action : 'ask';
  });
}

/** The tool result of a call blocked by a deny policy. */
export function policyDenialMessage(label: string): string {
  return `Blocked by tool policy (pattern match for '${label}')`;
}
