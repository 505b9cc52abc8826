/** `policy list | add PATTERN ACTION [--priority N] [--name NAME] | remove ID_OR_NAME`: tool policies in the database. */
import { listNetworkDecisions } from '../gateway/admin/admin-network.js';
import { addPolicy, listPolicies, removePolicy, type PolicyView } from '../gateway/admin/admin-policies.js';
import { UsageError } from '../shared/errors.js';
import { JSON_OPTION } from './cli-output.js';
import { listCommand, recordCommand, type Confirmation } from './command-table.js';

const CLI_ACTOR = 'cli';

function describePolicy(policy: PolicyView): string {
  return `${policy.action} "${policy.pattern}" (priority ${policy.priority}, id ${policy.policy_id})`;
}

function confirmPolicy(verb: string): Confirmation<PolicyView> {
  return { key: 'policy', line: (policy) => `${verb} policy ${describePolicy(policy)}` };
}

/** `--priority` as a number for the shared validation (which names the problem); text that is no number stays NaN. */
function priorityFlag(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  return /^[+-]?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
}

export const policyListCommand = listCommand({
  name: 'policy list',
  usage: 'sandpiper policy list [--json]',
  summary: 'list tool policies in evaluation order (highest priority first)',
  key: 'policies',
  read: () => (stores) => listPolicies(stores.policies),
  table: {
    headers: ['priority', 'action', 'pattern', 'name', 'enabled', 'policy_id'],
    row: (policy) => [
      policy.priority,
      policy.action,
      policy.pattern,
      policy.name,
      policy.enabled ? 'yes' : 'no',
      policy.policy_id,
    ],
    empty: 'no tool policies (add one with: sandpiper policy add PATTERN allow|deny|ask)',
  },
});

export const policyAddCommand = recordCommand({
  name: 'policy add',
  usage: 'sandpiper policy add PATTERN allow|deny|ask [--priority N] [--name NAME] [--json]',
  summary: 'add a tool policy: a glob on approval labels (e.g. "mcp__github__*") and what to do on a match',
  options: { ...JSON_OPTION, priority: { type: 'string' }, name: { type: 'string' } },
  arguments: 2,
  change([pattern = '', action = ''], context) {
    const name = context.flags['name'];
    if (name === true) throw new UsageError('--name takes a value');
    const priority = priorityFlag(context.flags['priority']);
    const input = {
      pattern,
      action,
      ...(priority === undefined ? {} : { priority }),
      ...(typeof name === 'string' ? { name } : {}),
    };
    return {
      audit: { action: 'policy.add', target: pattern, detail: `action=${action}` },
      apply: (stores) => addPolicy(stores.policies, input, CLI_ACTOR),
    };
  },
  confirm: confirmPolicy('added'),
});

export const policyRemoveCommand = recordCommand({
  name: 'policy remove',
  usage: 'sandpiper policy remove POLICY_ID|NAME [--json]',
  summary: 'remove a tool policy',
  arguments: 1,
  change: ([key = '']) => ({
    audit: { action: 'policy.remove', target: key },
    apply: (stores) => removePolicy(stores.policies, key),
  }),
  confirm: confirmPolicy('removed'),
});

const NETWORK_LIMIT = 200;

export const policyNetworkCommand = listCommand({
  name: 'policy network',
  usage: 'sandpiper policy network [--json]',
  summary: `list the newest ${NETWORK_LIMIT} network decisions of sandboxed tools (tools.network = "ask"), newest first`,
  key: 'decisions',
  read: () => (stores) => listNetworkDecisions(stores, NETWORK_LIMIT),
  table: {
    headers: ['created', 'destination', 'tool', 'decision', 'decided_by', 'ws_id'],
    row: (decision) => [
      decision.created,
      decision.destination,
      decision.tool,
      decision.decision,
      decision.decided_by,
      decision.ws_id,
    ],
    empty:
      'no network decisions (a sandboxed tool asks when tools.network = "ask" and a host is not on tools.network_allow)',
  },
});
