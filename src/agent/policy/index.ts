/** Tool policies and auto-approve rules. */
export { evaluateToolPolicies, policyDenialMessage } from './evaluate-tool-policies.js';
export { globMatches, matchesAutoApprove } from './label-glob.js';
