/** `approvals grants list|add|revoke` and `approvals history`: standing approvals and who decided what (ADR 0046). */
import { addGrant, approvalsHistory, listGrants, revokeGrant, type GrantView } from '../gateway/admin/admin-grants.js';
import { UsageError } from '../shared/errors.js';
import { stringFlag } from './cli-context.js';
import { JSON_OPTION } from './cli-output.js';
import { listCommand, recordCommand, type Confirmation } from './command-table.js';

const CLI_ACTOR = 'cli';
const HISTORY_LIMIT = 100;

function describeGrant(grant: GrantView): string {
  const args = grant.args === null ? '' : ` args "${grant.args}"`;
  const until = grant.expires === null ? '' : ` until ${grant.expires}`;
  return `${grant.grant_id}: ${grant.tool}${args} for ${grant.scope} ${grant.target}${until}`;
}

function confirmGrant(verb: string): Confirmation<GrantView> {
  return { key: 'grant', line: (grant) => `${verb} grant ${describeGrant(grant)}` };
}

export const grantsListCommand = listCommand({
  name: 'approvals grants list',
  usage: 'sandpiper approvals grants list [--user USERNAME] [--all] [--json]',
  summary: 'list standing approval grants in force (--all: expired and revoked ones too)',
  options: { ...JSON_OPTION, user: { type: 'string' }, all: { type: 'boolean' } },
  key: 'grants',
  read(context) {
    const user = stringFlag(context, 'user');
    return (stores) =>
      listGrants(stores, { ...(user === undefined ? {} : { user }), all: context.flags['all'] === true });
  },
  table: {
    headers: ['grant_id', 'status', 'scope', 'target', 'tool', 'args', 'expires', 'created_by', 'created'],
    row: (g) => [
      g.grant_id,
      g.status,
      g.scope,
      g.target,
      g.tool,
      g.args ?? '',
      g.expires ?? '',
      g.created_by,
      g.created,
    ],
    empty: 'no approval grants (an "Always" click makes one; or: sandpiper approvals grants add)',
  },
});

export const grantsAddCommand = recordCommand({
  name: 'approvals grants add',
  usage:
    'sandpiper approvals grants add conversation|user|channel TARGET TOOL_GLOB [--args GLOB] [--expires 7d|ISO] [--json]',
  summary:
    'allow a tool without asking: in one conversation (ws id), for a user everywhere, or in a channel (platform:id)',
  options: { ...JSON_OPTION, args: { type: 'string' }, expires: { type: 'string' } },
  arguments: 3,
  change([scope = '', target = '', tool = ''], context) {
    const args = stringFlag(context, 'args');
    const expires = stringFlag(context, 'expires');
    const input = {
      scope,
      target,
      tool,
      ...(args === undefined ? {} : { args }),
      ...(expires === undefined ? {} : { expires }),
    };
    const detail = `tool=${tool}${args === undefined ? '' : ' args'}${expires === undefined ? '' : ` expires=${expires}`}`;
    return {
      audit: { action: 'grant.add', target: `${scope}:${target}`, detail },
      apply: (stores) => addGrant(stores, input, CLI_ACTOR),
    };
  },
  confirm: confirmGrant('added'),
});

export const grantsRevokeCommand = recordCommand({
  name: 'approvals grants revoke',
  usage: 'sandpiper approvals grants revoke GRANT_ID [--json]',
  summary: 'revoke a standing approval grant (the next matching call asks again)',
  arguments: 1,
  change: ([grantId = '']) => ({
    audit: { action: 'grant.revoke', target: grantId },
    apply: (stores) => revokeGrant(stores, grantId, CLI_ACTOR),
  }),
  confirm: confirmGrant('revoked'),
});

export const approvalsHistoryCommand = listCommand({
  name: 'approvals history',
  usage: 'sandpiper approvals history [--user USERNAME] [--limit N] [--json]',
  summary: `who decided which approval and when, newest first (default ${HISTORY_LIMIT})`,
  options: { ...JSON_OPTION, user: { type: 'string' }, limit: { type: 'string' } },
  key: 'approvals',
  read(context) {
    const user = stringFlag(context, 'user');
    const rawLimit = stringFlag(context, 'limit');
    const limit = rawLimit === undefined ? HISTORY_LIMIT : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
      throw new UsageError('--limit must be a whole number from 1 to 10000');
    return (stores) => approvalsHistory(stores, { ...(user === undefined ? {} : { user }), limit });
  },
  table: {
    headers: ['decided', 'outcome', 'decided_by', 'owner', 'kind', 'tools', 'approval_id', 'ws_id'],
    row: (r) => [r.decided ?? '', r.outcome, r.decided_by, r.owner, r.kind, r.tools, r.approval_id, r.ws_id],
    empty: 'no decided approvals',
  },
});
