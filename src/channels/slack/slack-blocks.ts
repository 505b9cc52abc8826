/** OutboundMessage → a Slack message body (`text` plus Block Kit `blocks`), with approval card buttons (form cards: slack-forms.ts). */
import type { ActionName, ApprovalCard, CardOutcome, NoticeCode, OutboundMessage } from '../channel-adapter.js';
import { neutraliseFences } from '../format/format-tool-result.js';
import { truncate } from '../format/truncate.js';
import { escapeSlackText, toMrkdwn } from './slack-format.js';
import { renderFormCard } from './slack-forms.js';

/** Longest text the gateway hands us per message (Slack truncates `text` past 40,000; sections hold 3,000). */
export const SLACK_MAX_MESSAGE_LENGTH = 3_500;
/** Hard cap after mrkdwn conversion (escaping can lengthen text). */
const SLACK_TEXT_CAP = 39_000;
const SECTION_CAP = 2_900;
const ACTION_PREFIX = 'sp:';

export type SlackBlock = Record<string, unknown>;

export interface SlackMessageBody {
  /** mrkdwn text; the notification fallback when `blocks` are present. */
  text: string;
  /** Block Kit blocks; absent for plain text messages. */
  blocks?: SlackBlock[];
}

/** action_id of a card button: `sp:<action>`; the button's `value` is the approval id. */
export function actionId(action: ActionName): string {
  return `${ACTION_PREFIX}${action}`;
}

const ACTIONS: readonly ActionName[] = ['approve', 'always', 'reject', 'deny', 'plan-approve', 'plan-changes'];
/** action_id of the Stop button on a running turn's live message; its `value` is the thread's route key. */
export const STOP_ACTION = `${ACTION_PREFIX}stop`;

/** action_id of the Steer button next to Stop; its `value` is the thread's route key as well. */
export const STEER_ACTION = `${ACTION_PREFIX}steer`;

/** The thread route key a Stop click carries (`<channel>:<thread_ts>`), when it is well formed. */
export function parseStopValue(value: string | undefined): string | undefined {
  return value !== undefined && /^[CDG][A-Z0-9]{1,30}:\d{1,12}\.\d{1,8}$/.test(value) ? value : undefined;
}

/** Parses a card button click; undefined for buttons we did not issue or malformed approval ids. */
export function parseAction(
  id: string,
  value: string | undefined,
): { action: ActionName; approvalId: string } | undefined {
  if (!id.startsWith(ACTION_PREFIX)) return undefined;
  const action = id.slice(ACTION_PREFIX.length) as ActionName;
  if (!ACTIONS.includes(action) || !value || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) return undefined;
  return { action, approvalId: value };
}

function notices(slash: string): Record<NoticeCode, string> {
  return {
    'link-hint': `To talk to me, link your Slack account first: run \`${slash} link\` and paste a Sandpiper API token.`,
    'dm-unsupported': `_Direct messages aren't supported. Use \`${slash} ask\` in a channel or @mention me to start a conversation._`,
    'notification-inactive': '_This notification is no longer active._',
    closed: '_Workstream closed._',
    reactivated: '_Workstream reactivated._',
    cancelled: '_Cancelled._',
    cleared: '_Cleared._',
    'approval-card-failed': `*Error:* The approval request could not be shown here. Use \`${slash} cancel\` to stop this turn.`,
    'attachments-skipped': '*Some attachments were not used:*',
  };
}

function noticeText(code: NoticeCode, text: string | undefined, slash: string): string {
  // The skipped-attachments notice names user-chosen file names: shown under our heading, escaped.
  if (code === 'attachments-skipped')
    return truncate(`${notices(slash)[code]}\n${escapeSlackText(text ?? '')}`, SLACK_TEXT_CAP);
  return text ? truncate(toMrkdwn(text), SLACK_TEXT_CAP) : notices(slash)[code];
}

/** The Slack body for any outbound kind; `slash` is the configured slash command (for hints). */
export function renderSlackMessage(message: OutboundMessage, slash: string): SlackMessageBody {
  switch (message.kind) {
    case 'text':
      return { text: truncate(toMrkdwn(message.text), SLACK_TEXT_CAP) };
    case 'notice':
      return { text: noticeText(message.code, message.text, slash) };
    case 'error': {
      const text = message.message.trim() ? truncate(escapeSlackText(message.message), 500) : 'An error occurred';
      return { text: `*Error:* ${text}` };
    }
    case 'tool-call': {
      const status = message.status === 'running' ? '' : message.status === 'done' ? ' — Done' : ' — Error';
      const preview = message.preview ? ` ${codeSpan(truncate(message.preview, 120))}` : '';
      const output = message.output === undefined ? '' : `\n${codeBlock(message.output, 10, 500)}`;
      return section(
        `:gear: *${escapeSlackText(message.name)}*${status}${preview}${output}`,
        `${message.name}${status}`,
      );
    }
    case 'tool-result': {
      const title = `:gear: *${escapeSlackText(message.name)}*${message.isError ? ' — Error' : ' — Done'}`;
      return section(`${title}\n${codeBlock(message.output, 10, 500)}`, message.name);
    }
    case 'approval':
      return renderCard(message.card);
    case 'form':
      return renderFormCard(message.card);
  }
}

/**
 * A live message with the Stop and Steer buttons: the text in sections (Slack holds 3,000 characters per section), then the
 * button, whose value is the thread it stops (`routeKey`). The plain `text` stays the whole message (notifications,
 * and what the message shows once an edit without blocks removes the button).
 */
export function withStopButton(body: SlackMessageBody, routeKey: string): SlackMessageBody {
  const sections: SlackBlock[] = [];
  for (let rest = body.text; rest.length > 0 && sections.length < 40;) {
    // Split at a line break in the second half of a section when there is one, so markup rarely breaks in two.
    const cut =
      rest.length <= SECTION_CAP
        ? rest.length
        : rest.lastIndexOf('\n', SECTION_CAP) > SECTION_CAP / 2
          ? rest.lastIndexOf('\n', SECTION_CAP) + 1
          : SECTION_CAP;
    sections.push({ type: 'section', text: { type: 'mrkdwn', text: rest.slice(0, cut) } });
    rest = rest.slice(cut);
  }
  const stop = {
    type: 'button',
    text: { type: 'plain_text', text: 'Stop' },
    action_id: STOP_ACTION,
    value: routeKey,
    style: 'danger',
  };
  const steer = {
    type: 'button',
    text: { type: 'plain_text', text: 'Steer' },
    action_id: STEER_ACTION,
    value: routeKey,
  };
  return { text: body.text, blocks: [...sections, { type: 'actions', block_id: 'sp_stop', elements: [stop, steer] }] };
}

function section(text: string, fallback: string): SlackMessageBody {
  return {
    text: truncate(escapeSlackText(fallback), 150),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, SECTION_CAP) } }],
  };
}

/** Inline code for untrusted one-line text: escaped, backticks replaced so it cannot break out. */
function codeSpan(text: string): string {
  return `\`${escapeSlackText(text.replace(/\s+/g, ' ').replace(/`/g, "'"))}\``;
}

/** A fenced block for untrusted multi-line text: at most `lines` lines and `chars` characters, fences neutralised. */
function codeBlock(text: string, lines: number, chars: number): string {
  const all = text.split('\n');
  let body = all.slice(0, lines).join('\n');
  if (all.length > lines) body += '\n…';
  body = truncate(neutraliseFences(body), chars);
  return `\`\`\`${escapeSlackText(body) || ' '}\`\`\``;
}

function button(label: string, action: ActionName, approvalId: string, style?: 'primary' | 'danger'): SlackBlock {
  const element: SlackBlock = {
    type: 'button',
    text: { type: 'plain_text', text: label },
    action_id: actionId(action),
    value: approvalId,
  };
  if (style) element.style = style;
  return element;
}

/** An approval, network or plan-review card: a section with the request, then buttons while pending or who decided after. */
export function renderCard(card: ApprovalCard): SlackMessageBody {
  const plan = card.kind === 'plan';
  const title = plan ? 'Plan Review' : card.kind === 'network' ? 'Network Access Requested' : 'Tool Approval Required';
  const body = plan
    ? `*Plan Review*\n${codeBlock(card.content ?? '', 200, 2_000)}`
    : `*${title}*\n${card.kind === 'network' ? networkLines(card) : toolLines(card)}`;
  const blocks: SlackBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: truncate(body, SECTION_CAP) } }];
  if (card.outcome.status === 'pending') {
    blocks.push({ type: 'actions', block_id: `sp_card_${card.approvalId}`.slice(0, 255), elements: buttonsFor(card) });
    return {
      text: plan
        ? 'Plan review required'
        : card.kind === 'network'
          ? 'Network access requested'
          : 'Tool approval required',
      blocks,
    };
  }
  const label = outcomeLabel(card.kind, card.outcome);
  const decided = card.outcome;
  const who =
    decided.status === 'cancelled'
      ? 'Cancelled'
      : decided.status === 'interrupted'
        ? `Approved by ${escapeSlackText(decided.decidedBy)}; ${label.toLowerCase()}`
        : `${label} by ${escapeSlackText(decided.decidedBy)}`;
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: truncate(who, 300) }] });
  if (decided.feedback)
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `*Feedback:* ${codeBlock(decided.feedback, 40, 1_000)}` },
    });
  return { text: `${title}: ${label}`, blocks };
}

function buttonsFor(card: ApprovalCard): SlackBlock[] {
  const id = card.approvalId;
  if (card.kind === 'plan')
    return [button('Approve', 'plan-approve', id, 'primary'), button('Request changes', 'plan-changes', id)];
  if (card.kind === 'network')
    return [
      button('Allow once', 'approve', id, 'primary'),
      button('Always here', 'always', id),
      button('Deny', 'deny', id, 'danger'),
    ];
  return [
    button('Approve', 'approve', id, 'primary'),
    button('Always', 'always', id),
    button('Reject', 'reject', id, 'danger'),
  ];
}

/** "bash wants to reach pypi.org:443", as code (the destination is the process's own text). */
function networkLines(card: ApprovalCard): string {
  const lines = card.items.map((item) => codeBlock(item.header, 1, 300));
  return [...lines, '_Loopback, private and metadata addresses are refused whatever you answer._'].join('\n');
}

function toolLines(card: ApprovalCard): string {
  const lines: string[] = [];
  let used = 0;
  for (const [index, item] of card.items.entries()) {
    const detail = item.header || item.preview;
    const line = detail
      ? `• *${escapeSlackText(item.name)}*\n${codeBlock(detail, 20, 600)}`
      : `• *${escapeSlackText(item.name)}*`;
    if (used + line.length + 1 > 2_600) {
      lines.push(`_…and ${card.items.length - index} more (preview truncated)_`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join('\n');
}

function outcomeLabel(kind: ApprovalCard['kind'], outcome: Exclude<CardOutcome, { status: 'pending' }>): string {
  if (kind === 'network')
    return {
      approved: 'Allowed once',
      always: 'Always allowed here',
      rejected: 'Denied',
      cancelled: 'Cancelled',
      interrupted: 'Interrupted by a restart',
    }[outcome.status];
  if (kind === 'plan')
    return outcome.status === 'rejected'
      ? 'Changes requested'
      : outcome.status === 'cancelled'
        ? 'Cancelled'
        : 'Approved';
  return {
    approved: 'Approved',
    always: 'Always approved',
    rejected: 'Rejected',
    cancelled: 'Cancelled',
    interrupted: 'Interrupted by a restart',
  }[outcome.status];
}
