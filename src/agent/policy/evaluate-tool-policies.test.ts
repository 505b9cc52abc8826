import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolPolicy } from '../../storage/policy-store.js';
import { evaluateToolPolicies, policyDenialMessage } from './evaluate-tool-policies.js';

let counter = 0;
function policy(toolPattern: string, action: string, overrides: Partial<ToolPolicy> = {}): ToolPolicy {
  counter++;
  return {
    policyId: `p${counter}`,
    name: `policy ${counter}`,
    toolPattern,
    action: action as ToolPolicy['action'],
    priority: 0,
    orgId: '',
    enabled: true,
    createdBy: '',
    created: '2025-01-01T00:00:00Z',
    updated: '2025-01-01T00:00:00Z',
    ...overrides,
  };
}

describe('evaluateToolPolicies', () => {
  it('gives undefined for every label when there are no policies', () => {
    assert.deepEqual(evaluateToolPolicies([], ['bash', 'read_file']), [undefined, undefined]);
  });

  it('applies a matching policy only to the labels it matches', () => {
    assert.deepEqual(evaluateToolPolicies([policy('read_file', 'allow')], ['read_file', 'write_file']), [
      'allow',
      undefined,
    ]);
    assert.deepEqual(evaluateToolPolicies([policy('bash*', 'deny')], ['bash', 'bash_exec', 'math']), [
      'deny',
      'deny',
      undefined,
    ]);
  });

  it('takes the first match in the given (priority) order', () => {
    const ordered = [policy('bash*', 'deny', { priority: 100 }), policy('*', 'allow', { priority: 0 })];
    assert.deepEqual(evaluateToolPolicies(ordered, ['bash', 'read_file']), ['deny', 'allow']);
    const reversed = [policy('*', 'allow', { priority: 100 }), policy('bash*', 'deny', { priority: 0 })];
    assert.deepEqual(evaluateToolPolicies(reversed, ['bash']), ['allow']);
  });

  it('skips disabled policies and falls through to the next match', () => {
    const policies = [
      policy('bash', 'deny', { priority: 100, enabled: false }),
      policy('bash', 'allow', { priority: 10 }),
    ];
    assert.deepEqual(evaluateToolPolicies(policies, ['bash']), ['allow']);
    assert.deepEqual(evaluateToolPolicies([policy('*', 'deny', { enabled: false })], ['bash']), [undefined]);
  });

  it('treats ask and unknown actions as ask', () => {
    assert.deepEqual(evaluateToolPolicies([policy('*', 'ask')], ['bash']), ['ask']);
    assert.deepEqual(evaluateToolPolicies([policy('*', 'block')], ['bash']), ['ask']);
    assert.deepEqual(evaluateToolPolicies([policy('*', 'ALLOW')], ['bash']), ['ask']);
  });

  it('matches case-sensitively and lets * span / and _', () => {
    assert.deepEqual(evaluateToolPolicies([policy('Bash', 'deny')], ['bash']), [undefined]);
    assert.deepEqual(
      evaluateToolPolicies([policy('mcp_resource__file:///docs/*', 'allow')], ['mcp_resource__file:///docs/a/b.md']),
      ['allow'],
    );
    assert.deepEqual(evaluateToolPolicies([policy('mcp__*', 'deny')], ['mcp__github__create_issue']), ['deny']);
  });
});

describe('policyDenialMessage', () => {
  it('keeps the reference wording (history badges rely on the "Blocked" prefix)', () => {
    assert.equal(policyDenialMessage('bash'), "Blocked by tool policy (pattern match for 'bash')");
  });
});
