// The console's views. Each takes the shell's context and returns the nodes to show; `sources` names the live
// sources whose changes draw it again.
import { badge, button, el, table } from './dom.js';
import { usageView } from './usage.js';
import { policiesView } from './policies.js';

const tokens = (c) => `${c.input_tokens.toLocaleString()} in / ${c.output_tokens.toLocaleString()} out`;
const when = (stored) => (stored ? `${stored.replace('T', ' ').slice(0, 19)} UTC` : '');
const activityBadge = (activity) =>
  badge(activity, activity === 'error' ? 'bad' : activity === 'running' ? 'good' : undefined);

function turnNode(item) {
  const kind = item.role === 'tool' ? (item.is_error ? 'turn tool error' : 'turn tool') : 'turn';
  const role = item.role === 'tool' ? `tool result · ${item.tool}` : item.role;
  return el(
    'div',
    { class: kind },
    el('span', { class: 'role' }, role),
    item.text,
    item.tool_calls.map((callItem) =>
      el('div', {}, el('strong', {}, `→ ${callItem.name} `), el('code', {}, callItem.arguments)),
    ),
  );
}

async function conversationDetail(context) {
  const { conversation, recent } = await context.admin(`/conversations/${encodeURIComponent(context.state.opened)}`);
  return el(
    'section',
    { 'aria-labelledby': 'detail-title' },
    el(
      'h3',
      { id: 'detail-title' },
      `${conversation.name || conversation.ws_id} · ${conversation.owner} · ${conversation.model}`,
    ),
    button('Close', () => {
      context.state.opened = undefined;
      void context.rerender();
    }),
    recent.length === 0 ? el('p', { class: 'empty' }, 'No turns yet.') : recent.map(turnNode),
  );
}

async function conversations(context) {
  const rows = context.state.live.conversations ?? (await context.admin('/conversations')).conversations;
  const open = (row) =>
    button(
      'Open',
      () => {
        context.state.opened = row.ws_id;
        void context.rerender();
      },
      undefined,
      `open:${row.ws_id}`,
    );
  return [
    el('h2', {}, 'Conversations'),
    table(
      [
        ['State', (c) => [activityBadge(c.activity), c.queued > 0 ? ` +${c.queued} queued` : '']],
        ['Name', (c) => c.title || c.name],
        ['Owner', (c) => c.owner],
        ['Model', (c) => c.model],
        ['Tokens', tokens],
        ['Thread', (c) => c.thread],
        ['Updated', (c) => when(c.updated)],
      ],
      rows,
      open,
      'No open conversations.',
    ),
    context.state.opened ? await conversationDetail(context) : null,
  ];
}
conversations.sources = ['conversations'];

async function decide(context, approval, decision) {
  try {
    const answer = await context.admin(`/approvals/${encodeURIComponent(approval.approval_id)}/decision`, {
      method: 'POST',
      body: { decision },
    });
    context.say(
      `${decision === 'approve' ? 'Approved' : 'Rejected'}: ${approval.tools.join(', ')} (${answer.status}).`,
    );
  } catch (error) {
    context.say(error.message, true);
  }
}

async function approvals(context) {
  const rows = context.state.live.approvals ?? (await context.admin('/approvals')).approvals;
  const actions = context.canWrite
    ? (row) => [
        button('Approve', () => decide(context, row, 'approve'), 'approve', `approve:${row.approval_id}`),
        ' ',
        button('Reject', () => decide(context, row, 'reject'), 'reject', `reject:${row.approval_id}`),
      ]
    : undefined;
  return [
    el('h2', {}, 'Pending approvals'),
    table(
      [
        ['Tools', (a) => a.tools.join(', ')],
        ['Kind', (a) => a.kind],
        ['Owner', (a) => a.owner],
        ['Thread', (a) => (a.channel_type ? `${a.channel_type}:${a.channel_id}` : '')],
        ['Waiting', (a) => `${a.age_seconds}s`],
      ],
      rows,
      actions,
      'Nothing waits for approval.',
    ),
  ];
}
approvals.sources = ['approvals'];

async function status(context) {
  const cluster = await context.admin('/status');
  const health = context.state.live.health ?? { adapters: {}, sandbox: '' };
  return [
    el('h2', {}, 'Adapters and sandbox'),
    table(
      [
        ['Adapter', ([name]) => name],
        ['State', ([, value]) => badge(String(value), value === 'connected' ? 'good' : 'bad')],
      ],
      Object.entries(health.adapters),
      undefined,
      'No channel adapter.',
    ),
    el('p', {}, 'Sandbox: ', badge(health.sandbox, health.sandbox === 'bwrap' ? 'good' : 'bad')),
    el('h2', {}, `Instances (${cluster.database.engine})`),
    table(
      [
        ['Instance', (i) => i.instance_id],
        ['Host', (i) => i.host],
        ['State', (i) => badge(i.state, i.state === 'alive' ? 'good' : 'bad')],
        ['Heartbeat', (i) => (i.heartbeat_age_seconds === null ? '' : `${i.heartbeat_age_seconds}s ago`)],
        [
          'Shards',
          (i) => i.shards.map((s) => `${s.bot}#${s.shard_id}/${s.shard_count}${s.live ? '' : ' (expired)'}`).join(', '),
        ],
        ['Leases', (i) => `${i.workstream_leases.live} live, ${i.workstream_leases.expired} expired`],
      ],
      cluster.instances,
    ),
  ];
}
status.sources = ['health'];

async function mcpAction(context, path, body, done) {
  try {
    const answer = await context.admin(`/mcp/${path}`, { method: 'POST', body });
    context.say(done(answer));
  } catch (error) {
    context.say(error.message, true);
  }
}

const reloaded = (a) =>
  a.added === undefined
    ? 'Reloaded.'
    : `Reloaded: added ${a.added.length}, removed ${a.removed.length}, updated ${a.updated.length}, failed ${a.failed.length}.`;

async function mcp(context) {
  const servers = (context.state.live.mcp ?? (await context.admin('/mcp'))).perServer ?? [];
  const actions = context.canWrite
    ? (s) => [
        button(
          'Refresh',
          () => mcpAction(context, 'refresh', { server: s.name }, () => `Refreshed ${s.name}.`),
          undefined,
          `refresh:${s.name}`,
        ),
        ' ',
        button(
          'Reconnect',
          () => mcpAction(context, 'reconnect', { server: s.name }, () => `Reconnected ${s.name}.`),
          undefined,
          `reconnect:${s.name}`,
        ),
      ]
    : undefined;
  return [
    el('h2', {}, 'MCP servers'),
    context.canWrite
      ? el(
          'p',
          {},
          button(
            'Reload definitions',
            () => mcpAction(context, 'reload', undefined, reloaded),
            undefined,
            'mcp-reload',
          ),
          ' ',
          button(
            'Refresh all',
            () => mcpAction(context, 'refresh', undefined, () => 'Refreshed all servers.'),
            undefined,
            'mcp-refresh',
          ),
        )
      : null,
    table(
      [
        ['Server', (s) => s.name],
        ['Status', (s) => badge(s.connected ? 'connected' : 'down', s.connected ? 'good' : 'bad')],
        ['Tools', (s) => `${s.tools} tools, ${s.resources} resources, ${s.prompts} prompts`],
        [
          'Breaker',
          (s) =>
            s.circuitOpen
              ? badge(`open (${s.consecutiveFailures} failures)`, 'bad')
              : `closed (${s.consecutiveFailures} failures)`,
        ],
        ['Last error', (s) => s.error],
      ],
      servers,
      actions,
      'No MCP server is configured.',
    ),
  ];
}
mcp.sources = ['mcp'];

async function errors(context) {
  const [{ audit }, { history }, { conversations: list }] = await Promise.all([
    context.admin('/audit?limit=100'),
    context.admin('/approvals/history?limit=100'),
    context.admin('/conversations'),
  ]);
  const failed = audit.filter((entry) => entry.outcome !== 'ok');
  const refused = history.filter((entry) => entry.outcome === 'rejected' || entry.outcome === 'cancelled').slice(0, 30);
  return [
    el('h2', {}, 'Conversations in error'),
    table(
      [
        ['Name', (c) => c.title || c.name],
        ['Owner', (c) => c.owner],
        ['Thread', (c) => c.thread],
        ['Updated', (c) => when(c.updated)],
      ],
      list.filter((c) => c.activity === 'error'),
      undefined,
      'No conversation is in error.',
    ),
    el('h2', {}, 'Rejected and cancelled approvals'),
    table(
      [
        ['When', (a) => when(a.decided)],
        ['Tools', (a) => a.tools.join(', ')],
        ['Owner', (a) => a.owner],
        ['Outcome', (a) => badge(a.outcome, 'bad')],
        ['By', (a) => a.decided_by],
        ['Feedback', (a) => a.feedback ?? ''],
      ],
      refused,
      undefined,
      'No approval was rejected or cancelled recently.',
    ),
    el('h2', {}, 'Recent errors and refusals of admin changes'),
    table(
      [
        ['When', (a) => when(a.created)],
        ['Who', (a) => a.actor],
        ['Action', (a) => `${a.action} ${a.target}`],
        ['Outcome', (a) => badge(a.outcome, 'bad')],
        ['Detail', (a) => a.detail],
      ],
      failed,
      undefined,
      'No failed or refused admin change recently.',
    ),
    el('h2', {}, 'Recent admin changes'),
    table(
      [
        ['When', (a) => when(a.created)],
        ['Who', (a) => a.actor],
        ['Action', (a) => `${a.action} ${a.target}`],
        ['Outcome', (a) => a.outcome],
      ],
      audit.slice(0, 30),
    ),
  ];
}

export const VIEWS = { conversations, approvals, status, mcp, policies: policiesView, usage: usageView, errors };
