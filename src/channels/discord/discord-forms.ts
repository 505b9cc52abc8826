/** Discord rendering of form cards (MCP elicitations): the embed, its Answer/Decline buttons, and the modal. */
import type { FormCard, FormSpec } from '../channel-adapter.js';
import { escapeMentions } from '../format/escape-mentions.js';
import { neutraliseFences } from '../format/format-tool-result.js';
import { truncate } from '../format/truncate.js';
import { escapeDiscordMarkdown } from './discord-escape.js';

/** Discord modals hold at most five text inputs. */
export const DISCORD_MAX_FORM_FIELDS = 5;

const PREFIX = 'sp';
const ROW = 1;
const BUTTON = 2;
const TEXT_INPUT = 4;
const STYLE = { primary: 1, danger: 4 } as const;
const COLOR = { pending: 0x9b59b6, answered: 0x2ecc71, declined: 0xe74c3c, closed: 0x99aab5 } as const;

export type FormAction = 'form-answer' | 'form-decline' | 'form-submit';
const FORM_ACTIONS: readonly FormAction[] = ['form-answer', 'form-decline', 'form-submit'];

/** custom_id of a form button or modal: `sp:<action>:<formId>`. */
export function formCustomId(action: FormAction, formId: string): string {
  return `${PREFIX}:${action}:${formId}`;
}

/** Parses a form custom_id we issued; undefined for anything else. */
export function parseFormCustomId(id: string): { action: FormAction; formId: string } | undefined {
  const [prefix, action, formId, extra] = id.split(':');
  if (prefix !== PREFIX || extra !== undefined || !FORM_ACTIONS.includes(action as FormAction)) return undefined;
  if (!formId || !/^[A-Za-z0-9_-]{1,64}$/.test(formId)) return undefined;
  return { action: action as FormAction, formId };
}

/** The message body of a form card: an embed plus (while pending) the Answer and Decline buttons. */
export function renderFormCard(card: FormCard): { embeds: unknown[]; components: unknown[] } {
  if (card.purpose === 'authorization') return renderWaitCard(card);
  const lines = [truncate(neutraliseFences(escapeMentions(card.message)), 2000)];
  if (card.fieldLabels.length > 0)
    lines.push('', `**Fields:** ${card.fieldLabels.map(escapeDiscordMarkdown).join(', ')}`);
  const footer = { text: truncate(`Asked by the MCP server ${escapeMentions(card.source)}`, 200) };
  const embed: Record<string, unknown> = {
    title: 'Input Requested',
    color: COLOR.pending,
    footer,
    ...outcomeParts(card, lines),
  };
  embed.description = truncate(lines.join('\n'), 4000);
  const components =
    card.outcome.status === 'pending'
      ? [
          {
            type: ROW,
            components: [
              button('Answer', STYLE.primary, formCustomId('form-answer', card.formId)),
              button('Decline', STYLE.danger, formCustomId('form-decline', card.formId)),
            ],
          },
        ]
      : [];
  return { embeds: [embed], components };
}

/** Title, colour and fields for the card's outcome; appends explanation lines to `lines`. */
function outcomeParts(card: FormCard, lines: string[]): Record<string, unknown> {
  const outcome = card.outcome;
  const source = escapeDiscordMarkdown(card.source);
  switch (outcome.status) {
    case 'pending': {
      const expires = Math.floor(Date.parse(card.expiresAt) / 1000);
      if (Number.isFinite(expires))
        lines.push('', `Answer with the button below before <t:${expires}:t>; unanswered requests are declined.`);
      return {};
    }
    case 'unsupported':
      lines.push(
        '',
        `This form cannot be shown in Discord: ${escapeDiscordMarkdown(outcome.reason)}. The request from ${source} was declined.`,
      );
      return { title: 'Input Requested — Cannot Be Shown Here', color: COLOR.closed };
    case 'answered':
    case 'declined': {
      const answered = outcome.status === 'answered';
      const who = {
        name: answered ? 'Answered by' : 'Declined by',
        value: truncate(escapeDiscordMarkdown(outcome.decidedBy), 200),
        inline: true,
      };
      return {
        title: `Input Requested — ${answered ? 'Answered' : 'Declined'}`,
        color: COLOR[outcome.status],
        fields: [who],
      };
    }
    case 'expired':
      lines.push('', 'No answer in time; the request was declined.');
      return { title: 'Input Requested — Expired', color: COLOR.closed };
    case 'cancelled':
      lines.push('', `${source} withdrew the request.`);
      return { title: 'Input Requested — Withdrawn', color: COLOR.closed };
  }
}

const WAIT_TITLES: Record<FormCard['outcome']['status'], string> = {
  pending: 'Authorization Needed',
  answered: 'Authorized',
  declined: 'Authorization Cancelled',
  expired: 'Authorization Timed Out',
  cancelled: 'Authorization Ended',
  unsupported: 'Authorization Ended',
};

/** A call waiting for its owner's MCP OAuth sign-in: the message, and a Cancel button while it waits. */
function renderWaitCard(card: FormCard): { embeds: unknown[]; components: unknown[] } {
  const status = card.outcome.status;
  const lines = [truncate(escapeMentions(card.message), 2000)];
  const expires = Math.floor(Date.parse(card.expiresAt) / 1000);
  if (status === 'pending' && Number.isFinite(expires))
    lines.push('', `Cancel below, or the wait ends at <t:${expires}:t>.`);
  const color = status === 'pending' || status === 'answered' || status === 'declined' ? COLOR[status] : COLOR.closed;
  const footer = { text: truncate(`MCP server ${escapeMentions(card.source)}`, 200) };
  const embed = { title: WAIT_TITLES[status], color, description: truncate(lines.join('\n'), 4000), footer };
  const cancel = { type: ROW, components: [button('Cancel', STYLE.danger, formCustomId('form-decline', card.formId))] };
  return { embeds: [embed], components: status === 'pending' ? [cancel] : [] };
}

function button(label: string, style: number, id: string): Record<string, unknown> {
  return { type: BUTTON, style, label, custom_id: id };
}

/** The modal for a form: one text input per field (at most five), labelled, with hints and pre-filled values. */
export function formModal(form: FormSpec): Record<string, unknown> {
  return {
    custom_id: formCustomId('form-submit', form.formId),
    title: truncate(form.title, 45),
    components: form.fields.slice(0, DISCORD_MAX_FORM_FIELDS).map((field) => {
      const maxLength = Math.min(Math.max(1, field.maxLength), 4000);
      const input: Record<string, unknown> = {
        type: TEXT_INPUT,
        custom_id: field.id,
        label: truncate(field.label, 45) || field.id,
        style: field.multiline ? 2 : 1,
        required: field.required,
        max_length: maxLength,
      };
      if (field.placeholder) input.placeholder = truncate(field.placeholder, 100);
      if (field.value) input.value = truncate(field.value, maxLength);
      return { type: ROW, components: [input] };
    }),
  };
}
