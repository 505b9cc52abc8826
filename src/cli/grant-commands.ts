/** `approvals grants list|add|revoke` and `approvals history`: standing approvals and who decided what (ADR 0046). */
import { addGrant, approvalsHistory, listGrants, revokeGrant, type GrantView } from '../gateway/admin/admin-grants.js';
import { UsageError } from '../shared/errors.js';
import { requirePositionals, withAuditedStores, withStores } from './admin-commands.js';
import { writeLine, type CliCommand, type CliContext } from './cli-context.js';
import { JSON_OPTION, printJson, printList, wantsJson } from './cli-output.js';

const CLI_ACTOR = 'cli';
const HISTORY_LIMIT = 100;

function stringFlag(context: CliContext, name: string): string | undefined {
  const value = context.flags[name];
  if (value === true) throw new UsageError(`--${name} takes a value`);
  return typeof value === 'string' ? value : undefined;
}

function describeGrant(grant: GrantView): string {
  const args = grant.args === null ? '' : ` args "${grant.args}"`;
  const until = grant.expires === null ? '' : ` until ${grant.expires}`;
  return `${grant.grant_id}: ${grant.tool}${args} for ${grant.scope} ${grant.target}${until}`;
}

function printGrant(context: CliContext, verb: string, grant: GrantView): void {
  if (wantsJson(context)) printJson(context, { grant });
  else writeLine(context.io.stdout, `${verb} grant ${describeGrant(grant)}`);
}

export const grantsListCommand: CliCommand = {
  name: 'approvals grants list',
  usage: 'sandpiper approvals grants list [--user USERNAME] [--all] [--json]',
  summary: 'list standing approval grants in force (--all: expired and revoked ones too)',
  options: { ...JSON_OPTION, user: { type: 'string' }, all: { type: 'boolean' } },
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const user = stringFlag(context, 'user');
    const grants = await withStores(context, (stores) => listGrants(stores, { ...(user === undefined ? {} : { user }), all: context.flags['all'] === true }));
    printList(context, 'grants', grants, {
      headers: ['grant_id', 'status', 'scope', 'target', 'tool', 'args', 'expires', 'created_by', 'created'],
      row: (g) => [g.grant_id, g.status, g.scope, g.target, g.tool, g.args ?? '', g.expires ?? '', g.created_by, g.created],
      empty: 'no approval grants (an "Always" click makes one; or: sandpiper approvals grants add)',
    });
    return 0;
  },
};

export const grantsAddCommand: CliCommand = {
  name: 'approvals grants add',
  usage: 'sandpiper approvals grants add conversation|user|channel TARGET TOOL_GLOB [--args GLOB] [--expires 7d|ISO] [--json]',
  summary: 'allow a tool without asking: in one conversation (ws id), for a user everywhere, or in a channel (platform:id)',
  options: { ...JSON_OPTION, args: { type: 'string' }, expires: { type: 'string' } },
  async run(context) {
    const [scope, target, tool] = requirePositionals(context, 3, this.usage) as [string, string, string];
    const args = stringFlag(context, 'args');
    const expires = stringFlag(context, 'expires');
    const input = { scope, target, tool, ...(args === undefined ? {} : { args }), ...(expires === undefined ? {} : { expires }) };
    const detail = `tool=${tool}${args === undefined ? '' : ' args'}${expires === undefined ? '' : ` expires=${expires}`}`;
    const grant = await withAuditedStores(context, { action: 'grant.add', target: `${scope}:${target}`, detail }, (stores) => addGrant(stores, input, CLI_ACTOR));
    printGrant(context, 'added', grant);
    return 0;
  },
};

export const grantsRevokeCommand: CliCommand = {
  name: 'approvals grants revoke',
  usage: 'sandpiper approvals grants revoke GRANT_ID [--json]',
  summary: 'revoke a standing approval grant (the next matching call asks again)',
  options: JSON_OPTION,
  async run(context) {
    const [grantId] = requirePositionals(context, 1, this.usage) as [string];
    const grant = await withAuditedStores(context, { action: 'grant.revoke', target: grantId }, (stores) => revokeGrant(stores, grantId, CLI_ACTOR));
    printGrant(context, 'revoked', grant);
    return 0;
  },
};

export const approvalsHistoryCommand: CliCommand = {
  name: 'approvals history',
  usage: 'sandpiper approvals history [--user USERNAME] [--limit N] [--json]',
  summary: `who decided which approval and when, newest first (default ${HISTORY_LIMIT})`,
  options: { ...JSON_OPTION, user: { type: 'string' }, limit: { type: 'string' } },
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const user = stringFlag(context, 'user');
    const rawLimit = stringFlag(context, 'limit');
    const limit = rawLimit === undefined ? HISTORY_LIMIT : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit must be a whole number from 1 to 10000');
    const rows = await withStores(context, (stores) => approvalsHistory(stores, { ...(user === undefined ? {} : { user }), limit }));
    printList(context, 'approvals', rows, {
      headers: ['decided', 'outcome', 'decided_by', 'owner', 'kind', 'tools', 'approval_id', 'ws_id'],
      row: (r) => [r.decided ?? '', r.outcome, r.decided_by, r.owner, r.kind, r.tools, r.approval_id, r.ws_id],
      empty: 'no decided approvals',
    });
    return 0;
  },
};
