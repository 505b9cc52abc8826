/** Discord-specific card rendering: approval/plan embeds, their buttons, and the custom_id format they carry. */
import type { ActionName, ApprovalCard } from '../channel-adapter.js';
import { neutraliseFences } from '../format/format-tool-result.js';
import { truncate } from '../format/truncate.js';
import { escapeDiscordMarkdown } from './discord-escape.js';

const PREFIX = 'sp';
const BUTTON = 2;
const ROW = 1;
const STYLE = { primary: 1, secondary: 2, success: 3, danger: 4 } as const;
const COLOR = { pending: 0xe67e22, plan: 0x3498db, approved: 0x2ecc71, rejected: 0xe74c3c, decided: 0x99aab5 } as const;

/** Controls and forms whose custom_id names no approval: the link form, Stop, and Steer (its button and its form). */
type PlainControl = 'link' | 'stop' | 'steer';

/** custom_id of a card button or form: `sp:<action>:<approvalId>`; `sp:link`, `sp:stop` and `sp:steer` for the others. */
export function customId(action: ActionName | PlainControl, approvalId = ''): string {
  return approvalId ? `${PREFIX}:${action}:${approvalId}` : `${PREFIX}:${action}`;
}

const ACTIONS: readonly ActionName[] = ['approve', 'always', 'reject', 'deny', 'plan-approve', 'plan-changes'];

/** Parses a custom_id we issued; undefined for anything else (old or foreign components). */
export function parseCustomId(id: string): { action: ActionName | PlainControl; approvalId: string } | undefined {
  const [prefix, action, approvalId] = id.split(':');
  if (prefix !== PREFIX || action === undefined) return undefined;
  if (action === 'link' || action === 'stop' || action === 'steer') return { action, approvalId: '' };
  if (!ACTIONS.includes(action as ActionName) || !approvalId || !/^[A-Za-z0-9_-]{1,64}$/.test(approvalId))
    return undefined;
  return { action: action as ActionName, approvalId };
}

interface Button {
  type: typeof BUTTON;
  style: number;
  label: string;
  custom_id: string;
  disabled?: boolean;
}

function button(label: string, style: number, id: string): Button {
  return { type: BUTTON, style, label, custom_id: id };
}

/**
 * The row of a running turn's live message: Stop (a click cancels the turn in that thread) and Steer (a click opens
 * the steer form, whose text joins the running turn).
 */
export function stopRow(): unknown {
  return {
    type: ROW,
    components: [button('Stop', STYLE.danger, customId('stop')), button('Steer', STYLE.secondary, customId('steer'))],
  };
}

/** The message body of a card: an embed plus (while pending) one row of buttons. */
export function renderCard(card: ApprovalCard): { embeds: unknown[]; components: unknown[] } {
  const pending = card.outcome.status === 'pending';
  const embed: Record<string, unknown> =
    card.kind === 'plan' ? planEmbed(card) : card.kind === 'network' ? networkEmbed(card) : toolsEmbed(card);
  if (!pending) {
    const outcome = card.outcome as Exclude<ApprovalCard['outcome'], { status: 'pending' }>;
    embed.title = `${String(embed.title)} — ${outcomeLabel(card, outcome.status)}`;
    embed.color =
      outcome.status === 'rejected'
        ? COLOR.rejected
        : outcome.status === 'cancelled' || outcome.status === 'interrupted'
          ? COLOR.decided
          : COLOR.approved;
    const fields = [
      {
        name: outcome.status === 'interrupted' ? 'Approved by' : 'Decided by',
        value: truncate(escapeDiscordMarkdown(outcome.decidedBy), 200),
        inline: true,
      },
    ];
    if (outcome.feedback)
      fields.push({ name: 'Feedback', value: truncate(neutraliseFences(outcome.feedback), 1000), inline: false });
    embed.fields = fields;
  }
  return { embeds: [embed], components: pending ? [{ type: ROW, components: buttonsFor(card) }] : [] };
}

function buttonsFor(card: ApprovalCard): Button[] {
  if (card.kind === 'plan') {
    return [
      button('Approve', STYLE.success, customId('plan-approve', card.approvalId)),
      button('Request changes', STYLE.secondary, customId('plan-changes', card.approvalId)),
    ];
  }
  if (card.kind === 'network') {
    return [
      button('Allow once', STYLE.success, customId('approve', card.approvalId)),
      button('Always here', STYLE.secondary, customId('always', card.approvalId)),
      button('Deny', STYLE.danger, customId('deny', card.approvalId)),
    ];
  }
  return [
    button('Approve', STYLE.success, customId('approve', card.approvalId)),
    button('Always', STYLE.secondary, customId('always', card.approvalId)),
    button('Reject', STYLE.danger, customId('reject', card.approvalId)),
  ];
}

function toolsEmbed(card: ApprovalCard): Record<string, unknown> {
  const lines = card.items.map((item) => {
    const detail = item.header || item.preview;
    const name = `\`${item.name.replace(/`/g, "'")}\``;
    return detail ? `• ${name}: ${truncate(neutraliseFences(detail), 300)}` : `• ${name}`;
  });
  const description = truncate(['**Tool approval required:**', ...lines].join('\n'), 4000);
  return { title: 'Tool Approval Required', description, color: COLOR.pending };
}

/** "bash wants to reach pypi.org:443": the destination is the process's own text, shown as code. */
function networkEmbed(card: ApprovalCard): Record<string, unknown> {
  const lines = card.items.map((item) => `\`${truncate(item.header.replace(/`/g, "'"), 300)}\``);
  const description = truncate(
    [
      '**A sandboxed process asks for the network:**',
      ...lines,
      'Loopback, private and metadata addresses are refused whatever you answer.',
    ].join('\n'),
    4000,
  );
  return { title: 'Network Access Requested', description, color: COLOR.pending };
}

function planEmbed(card: ApprovalCard): Record<string, unknown> {
  const description = truncate(`**Plan review requested:**\n\n${card.content ?? ''}`, 4000);
  return { title: 'Plan Review', description, color: COLOR.plan };
}

function outcomeLabel(card: ApprovalCard, status: string): string {
  if (card.kind === 'plan')
    return status === 'rejected' ? 'Changes requested' : status === 'cancelled' ? 'Cancelled' : 'Approved';
  if (card.kind === 'network')
    return (
      {
        approved: 'Allowed once',
        always: 'Always allowed here',
        rejected: 'Denied',
        cancelled: 'Cancelled',
        interrupted: 'Interrupted by a restart',
      }[status] ?? status
    );
  return (
    {
      approved: 'Approved',
      always: 'Always approved',
      rejected: 'Rejected',
      cancelled: 'Cancelled',
      interrupted: 'Interrupted by a restart',
    }[status] ?? status
  );
}

/** The modal asking for an optional rejection reason or requested plan changes. */
export function feedbackModal(action: 'reject' | 'plan-changes', approvalId: string): Record<string, unknown> {
  const plan = action === 'plan-changes';
  return {
    custom_id: customId(action, approvalId),
    title: plan ? 'Request Changes' : 'Reject',
    components: [
      {
        type: ROW,
        components: [
          {
            type: 4,
            custom_id: 'feedback',
            label: plan ? 'What should change?' : 'Feedback for the agent (optional)',
            style: 2,
            required: plan,
            max_length: 2000,
          },
        ],
      },
    ],
  };
}

/** The Steer button's modal: guidance for the running turn (the gateway lets only the owner or an admin steer). */
export function steerModal(): Record<string, unknown> {
  return {
    custom_id: customId('steer'),
    title: 'Steer the running turn',
    components: [
      {
        type: ROW,
        components: [
          {
            type: 4,
            custom_id: 'steer',
            label: 'What should the agent take into account?',
            style: 2,
            required: true,
            max_length: 2000,
          },
        ],
      },
    ],
  };
}

/** The /link modal: the token is typed into a form, never into a channel. */
export function linkModal(): Record<string, unknown> {
  return {
    custom_id: customId('link'),
    title: 'Link Account',
    components: [
      {
        type: ROW,
        components: [
          {
            type: 4,
            custom_id: 'token',
            label: 'API Token',
            style: 1,
            required: true,
            placeholder: 'Paste your sp_... API token',
          },
        ],
      },
    ],
  };
}
