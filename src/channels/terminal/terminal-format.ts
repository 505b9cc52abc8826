/** The terminal's words: every outbound message as plain lines, each notice, and how a typed approval answer reads. */
import type { PreparedItem } from '../../agent/events.js';
import type { ApprovalCard, CardOutcome, FormCard, NoticeCode, OutboundMessage } from '../channel-adapter.js';

const NOTICES: Record<NoticeCode, string> = {
  'link-hint': '(this terminal is not linked to a Sandpiper user)',
  'dm-unsupported': '(conversations are turned off here)',
  'notification-inactive': '(that notification is no longer active)',
  closed: '(conversation closed; your next message starts a new one)',
  reactivated: '(conversation reactivated)',
  cancelled: '(cancelled)',
  cleared: '(cleared)',
  'approval-card-failed': 'error: the approval request could not be shown; type /cancel to stop this turn',
  'attachments-skipped': 'Some attachments were not used:',
};

/** The lines `/help` prints. */
export const TERMINAL_HELP = [
  'Type a message to talk to the agent. Commands:',
  '  /help            this list',
  '  /model [ALIAS]   show the models, or switch this conversation to ALIAS',
  '  /status          model, token use, pending approvals and queued messages',
  '  /cancel          stop the running turn',
  '  /new             close this conversation; the next message starts a new one',
  '  /quit            leave (Ctrl-D too)',
].join('\n');

const QUESTIONS: Record<ApprovalCard['kind'], string> = {
  tools: 'Approve? [y/n/a(lways)/feedback] ',
  network: 'Allow? [y/n/a(lways)] ',
  plan: 'Approve the plan? [y / n, or the changes you want] ',
};

/** The question a pending card asks at the prompt. */
export function approvalQuestion(card: ApprovalCard): string {
  return QUESTIONS[card.kind];
}

/** How a message shows when it is posted; '' shows nothing. */
export function renderOutbound(message: OutboundMessage): string {
  switch (message.kind) {
    case 'text':
      return message.text;
    case 'tool-call':
      return `⚙ ${message.name}${message.preview ? ` ${firstLine(message.preview)}` : ''}`;
    case 'tool-result':
      return `${message.isError ? '✗' : '✓'} ${message.name}\n${indent(message.output.trimEnd(), 8)}`;
    case 'error':
      return `error: ${message.message}`;
    case 'notice':
      return message.code === 'attachments-skipped' ? `${NOTICES[message.code]}\n${message.text ?? ''}` : (message.text ?? NOTICES[message.code]);
    case 'approval':
      return renderApproval(message.card);
    case 'form':
      return `${message.card.source} asks: ${message.card.message}`;
  }
}

/** What an edit adds to what was shown: a tool's outcome, a card's decision; '' when it adds nothing worth a line. */
export function renderEdit(before: OutboundMessage, after: OutboundMessage): string {
  if (after.kind === 'tool-call') return before.kind === 'tool-call' && before.status !== 'running' ? '' : toolOutcome(after);
  if (after.kind === 'approval' && before.kind === 'approval' && before.card.outcome.status === 'pending') return outcomeLine(after.card.outcome);
  if (after.kind === 'form' && before.kind === 'form' && before.card.outcome.status === 'pending') return formOutcomeLine(after.card);
  if (after.kind === 'text' && before.kind === 'text' && after.text.startsWith(before.text)) return after.text.slice(before.text.length);
  return '';
}

function toolOutcome(call: Extract<OutboundMessage, { kind: 'tool-call' }>): string {
  if (call.status === 'running') return '';
  return `${call.status === 'error' ? '✗' : '✓'} ${call.name}${call.output ? `\n${indent(call.output.trimEnd(), 8)}` : ''}`;
}

/** Parses an approval answer: `y`, `a`/`always`, `n`, or `y, feedback`; anything else denies with the text as feedback. */
export function parseApprovalAnswer(line: string): { approved: boolean; always: boolean; feedback: string | null } {
  const trimmed = line.trim();
  const split = trimmed.search(/[,\s]/);
  const word = (split === -1 ? trimmed : trimmed.slice(0, split)).toLowerCase();
  const rest = split === -1 ? '' : trimmed.slice(split + 1).trim();
  const feedback = rest === '' ? null : rest;
  if (word === 'y' || word === 'yes') return { approved: true, always: false, feedback };
  if (word === 'a' || word === 'always') return { approved: true, always: true, feedback };
  if (word === 'n' || word === 'no' || trimmed === '') return { approved: false, always: false, feedback };
  return { approved: false, always: false, feedback: trimmed };
}

function renderApproval(card: ApprovalCard): string {
  const lines = card.kind === 'plan' && card.content ? [`Plan:\n${indent(card.content, 40)}`] : [describeItems(card.items)];
  if (card.outcome.status !== 'pending') lines.push(outcomeLine(card.outcome));
  return lines.join('\n');
}

function outcomeLine(outcome: CardOutcome): string {
  if (outcome.status === 'pending') return '';
  const feedback = outcome.feedback ? `: ${outcome.feedback}` : '';
  return `(${outcome.status} by ${outcome.decidedBy}${feedback})`;
}

function formOutcomeLine(card: FormCard): string {
  const outcome = card.outcome;
  if (outcome.status === 'answered' || outcome.status === 'declined') return `(${outcome.status} by ${outcome.decidedBy})`;
  if (outcome.status === 'unsupported') return `(the form cannot be asked here: ${outcome.reason})`;
  return outcome.status === 'pending' ? '' : `(${outcome.status})`;
}

function describeItems(items: readonly PreparedItem[]): string {
  return items.map((item) => `${item.header}${item.preview ? `\n${indent(item.preview, 6)}` : ''}`).join('\n');
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

function indent(text: string, max: number): string {
  const lines = text.split('\n');
  const shown = lines.slice(0, max).map((line) => `    ${line}`);
  if (lines.length > max) shown.push(`    … (${lines.length - max} more lines)`);
  return shown.join('\n');
}
