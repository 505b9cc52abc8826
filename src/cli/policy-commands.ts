/** `policy list | add PATTERN ACTION [--priority N] [--name NAME] | remove ID_OR_NAME`: tool policies in the database. */
import { listNetworkDecisions } from '../gateway/admin/admin-network.js';
import { addPolicy, listPolicies, removePolicy, type PolicyView } from '../gateway/admin/admin-policies.js';
import { UsageError } from '../shared/errors.js';
import { requirePositionals, withAuditedStores, withStores } from './admin-commands.js';
import { writeLine, type CliCommand, type CliContext } from './cli-context.js';
import { JSON_OPTION, printJson, printList, wantsJson } from './cli-output.js';

const CLI_ACTOR = 'cli';

function describePolicy(policy: PolicyView): string {
  return `${policy.action} "${policy.pattern}" (priority ${policy.priority}, id ${policy.policy_id})`;
}

function printPolicy(context: CliContext, verb: string, policy: PolicyView): void {
  if (wantsJson(context)) printJson(context, { policy });
  else writeLine(context.io.stdout, `${verb} policy ${describePolicy(policy)}`);
}

/** `--priority` as a number for the shared validation (which names the problem); text that is no number stays NaN. */
function priorityFlag(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  return /^[+-]?\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
}

export const policyListCommand: CliCommand = {
  name: 'policy list',
  usage: 'sandpiper policy list [--json]',
  summary: 'list tool policies in evaluation order (highest priority first)',
  options: JSON_OPTION,
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const policies = await withStores(context, (stores) => listPolicies(stores.policies));
    printList(context, 'policies', policies, {
      headers: ['priority', 'action', 'pattern', 'name', 'enabled', 'policy_id'],
      row: (policy) => [policy.priority, policy.action, policy.pattern, policy.name, policy.enabled ? 'yes' : 'no', policy.policy_id],
      empty: 'no tool policies (add one with: sandpiper policy add PATTERN allow|deny|ask)',
    });
    return 0;
  },
};

export const policyAddCommand: CliCommand = {
  name: 'policy add',
  usage: 'sandpiper policy add PATTERN allow|deny|ask [--priority N] [--name NAME] [--json]',
  summary: 'add a tool policy: a glob on approval labels (e.g. "mcp__github__*") and what to do on a match',
  options: { ...JSON_OPTION, priority: { type: 'string' }, name: { type: 'string' } },
  async run(context) {
    const [pattern, action] = requirePositionals(context, 2, this.usage) as [string, string];
    const name = context.flags['name'];
    if (name === true) throw new UsageError('--name takes a value');
    const input = {
      pattern,
      action,
      ...(priorityFlag(context.flags['priority']) === undefined ? {} : { priority: priorityFlag(context.flags['priority']) }),
      ...(typeof name === 'string' ? { name } : {}),
    };
    const policy = await withAuditedStores(context, { action: 'policy.add', target: pattern, detail: `action=${action}` }, (stores) => addPolicy(stores.policies, input, CLI_ACTOR));
    printPolicy(context, 'added', policy);
    return 0;
  },
};

export const policyRemoveCommand: CliCommand = {
  name: 'policy remove',
  usage: 'sandpiper policy remove POLICY_ID|NAME [--json]',
  summary: 'remove a tool policy',
  options: JSON_OPTION,
  async run(context) {
    const [key] = requirePositionals(context, 1, this.usage) as [string];
    const policy = await withAuditedStores(context, { action: 'policy.remove', target: key }, (stores) => removePolicy(stores.policies, key));
    printPolicy(context, 'removed', policy);
    return 0;
  },
};

const NETWORK_LIMIT = 200;

export const policyNetworkCommand: CliCommand = {
  name: 'policy network',
  usage: 'sandpiper policy network [--json]',
  summary: `list the newest ${NETWORK_LIMIT} network decisions of sandboxed tools (tools.network = "ask"), newest first`,
  options: JSON_OPTION,
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const decisions = await withStores(context, (stores) => listNetworkDecisions(stores, NETWORK_LIMIT));
    printList(context, 'decisions', decisions, {
      headers: ['created', 'destination', 'tool', 'decision', 'decided_by', 'ws_id'],
      row: (decision) => [decision.created, decision.destination, decision.tool, decision.decision, decision.decided_by, decision.ws_id],
      empty: 'no network decisions (a sandboxed tool asks when tools.network = "ask" and a host is not on tools.network_allow)',
    });
    return 0;
  },
};
