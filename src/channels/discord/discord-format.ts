/** Turns the port's outbound messages into Discord message bodies; nothing we send can ping anyone. */
import { createHash } from 'node:crypto';
import type { NoticeCode, OutboundMessage, PostKey } from '../channel-adapter.js';
import { escapeMentions } from '../format/escape-mentions.js';
import { formatToolResult, neutraliseFences } from '../format/format-tool-result.js';
import { truncate } from '../format/truncate.js';
import { renderCard, stopRow } from './discord-components.js';
import { escapeDiscordMarkdown } from './discord-escape.js';
import { renderFormCard } from './discord-forms.js';

export const DISCORD_MAX_MESSAGE_LENGTH = 2000;
const NO_MENTIONS = { parse: [] as string[] };
const COLOR = { running: 0x979c9f, done: 0x607d8b, error: 0xe74c3c } as const;

export interface DiscordMessageBody {
  content: string;
  embeds: unknown[];
  components?: unknown[];
  allowed_mentions: { parse: string[] };
  /** With `enforce_nonce`, Discord creates one message per nonce (a repeated post returns the first one). */
  nonce?: string;
  enforce_nonce?: boolean;
}

const NOTICES: Record<NoticeCode, string> = {
  'link-hint': 'To talk to me, link your Discord account first: run `/link` and paste a Sandpiper API token.',
  'dm-unsupported':
    "*Direct messages aren't supported. Use `/ask` in a server channel or @mention me to start a conversation.*",
  'notification-inactive': '*This notification is no longer active.*',
  closed: '*Workstream closed.*',
  reactivated: '*Workstream reactivated.*',
  cancelled: '*Cancelled.*',
  cleared: '*Cleared.*',
  'approval-card-failed': '**Error:** The approval request could not be shown here. Use `/cancel` to stop this turn.',
  'attachments-skipped': '**Some attachments were not used:**',
};

function noticeContent(code: NoticeCode, text: string | undefined): string {
  // The skipped-attachments notice names user-chosen file names: shown under our heading, never as markdown or links.
  if (code === 'attachments-skipped') {
    const plain = escapeMentions(text ?? '').replace(/([\\*_~`|>#[\]])/g, '\\$1');
    return truncate(`${NOTICES[code]}\n${plain}`, DISCORD_MAX_MESSAGE_LENGTH);
  }
  return text ? escapeMentions(text) : NOTICES[code];
}

/**
 * The nonce of a committed answer's post: the turn, the chunk's place and its text, hashed to Discord's 25 characters.
 * The live renderer's final edit and a restart that shows the committed answer derive the same nonce for the same text.
 */
export function answerNonce(key: PostKey, text: string): string {
  return createHash('sha256').update(`${key.turnId}\n${key.part}\n${text}`).digest('base64url').slice(0, 25);
}

/** The REST body for a message of any outbound kind. */
export function renderMessage(message: OutboundMessage): DiscordMessageBody {
  switch (message.kind) {
    case 'text': {
      const body: DiscordMessageBody = {
        content: truncate(message.text, DISCORD_MAX_MESSAGE_LENGTH),
        embeds: [],
        allowed_mentions: NO_MENTIONS,
      };
      if (message.key !== undefined)
        Object.assign(body, { nonce: answerNonce(message.key, message.text), enforce_nonce: true });
      return message.stoppable ? { ...body, components: [stopRow()] } : body;
    }
    case 'notice':
      return { content: noticeContent(message.code, message.text), embeds: [], allowed_mentions: NO_MENTIONS };
    case 'error': {
      const text = message.message.trim() ? truncate(escapeMentions(message.message), 500) : 'An error occurred';
      return { content: `**Error:** ${text}`, embeds: [], allowed_mentions: NO_MENTIONS };
    }
    case 'tool-call':
      return { content: '', embeds: [toolCallEmbed(message)], allowed_mentions: NO_MENTIONS };
    case 'tool-result':
      return {
        content: '',
        embeds: [toolResultEmbed(message.name, message.output, message.isError)],
        allowed_mentions: NO_MENTIONS,
      };
    case 'approval':
      return { content: '', ...renderCard(message.card), allowed_mentions: NO_MENTIONS };
    case 'form':
      return { content: '', ...renderFormCard(message.card), allowed_mentions: NO_MENTIONS };
  }
}

function toolCallEmbed(message: Extract<OutboundMessage, { kind: 'tool-call' }>): Record<string, unknown> {
  const suffix = message.status === 'running' ? '' : message.status === 'done' ? ' — Done' : ' — Error';
  const preview = message.preview ? truncate(neutraliseFences(escapeMentions(message.preview)), 120) : '';
  const output = message.output === undefined ? '' : `\n${formatToolResult(message.output)}`;
  return {
    title: truncate(`${escapeDiscordMarkdown(message.name)}${suffix}`, 256),
    description: truncate(`${preview}${output}`, 4000),
    color: COLOR[message.status],
  };
}

function toolResultEmbed(name: string, output: string, isError: boolean): Record<string, unknown> {
  return {
    title: truncate(escapeDiscordMarkdown(name), 256),
    description: formatToolResult(output),
    color: isError ? COLOR.error : COLOR.done,
  };
}
