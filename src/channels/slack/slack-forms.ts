/** Slack rendering of form cards (MCP elicitations): the card with Answer/Decline buttons, the modal, and its submission. */
import type { FormCard, FormField, FormSpec } from '../channel-adapter.js';
import { neutraliseFences } from '../format/format-tool-result.js';
import { truncate } from '../format/truncate.js';
import { isPlainObject, safeParseJson } from '../../shared/json.js';
import type { SlackBlock, SlackMessageBody } from './slack-blocks.js';
import { escapeSlackText } from './slack-format.js';

/** Most fields a form modal holds here (Slack allows 100 blocks per view; 20 inputs keep the form usable). */
export const SLACK_MAX_FORM_FIELDS = 20;

const ANSWER_ID = 'sp:form-answer';
const DECLINE_ID = 'sp:form-decline';
/** callback_id of a form modal. */
export const FORM_CALLBACK_ID = 'sp:form';
const FORM_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Slack limits for modal parts (characters). */
const LIMIT = {
  title: 24,
  label: 2_000,
  placeholder: 150,
  hint: 2_000,
  input: 3_000,
  optionText: 75,
  optionValue: 150,
  options: 100,
  metadata: 3_000,
} as const;
const SECTION_CAP = 2_900;

/** A form field; one with `choices` that all fit a Slack drop-down is shown as one, any other as a text input. */
export type SlackFormField = FormField;

/** What a form modal remembers between opening and submission (Slack hands `private_metadata` back verbatim). */
export interface FormModalContext {
  /** `response_url` of the Answer click: where private answers to the submission go. */
  responseUrl: string;
  /** Channel of the card (fallback for private answers). */
  channelId: string;
}

/** Whether a block action id is one of the form card buttons. */
export function isFormActionId(id: string): boolean {
  return id === ANSWER_ID || id === DECLINE_ID;
}

/** Parses a click on a form card button (its value is the form id); undefined for anything else. */
export function parseFormAction(
  id: string,
  value: string | undefined,
): { action: 'open' | 'decline'; formId: string } | undefined {
  if (!isFormActionId(id) || !value || !FORM_ID.test(value)) return undefined;
  return { action: id === ANSWER_ID ? 'open' : 'decline', formId: value };
}

/** The card: who asks and what, the fields, then Answer/Decline buttons while pending or the outcome after. */
export function renderFormCard(card: FormCard): SlackMessageBody {
  if (card.purpose === 'authorization') return renderWaitCard(card);
  const lines = [
    `*Input requested* by the MCP server ${escapeSlackText(card.source)}`,
    escapeSlackText(truncate(neutraliseFences(card.message), 2_000)),
  ];
  if (card.fieldLabels.length > 0) lines.push(`*Fields:* ${card.fieldLabels.map(escapeSlackText).join(', ')}`);
  lines.push(outcomeLine(card));
  const blocks: SlackBlock[] = [
    { type: 'section', text: { type: 'mrkdwn', text: truncate(lines.join('\n'), SECTION_CAP) } },
  ];
  if (card.outcome.status === 'pending') {
    blocks.push({
      type: 'actions',
      block_id: `sp_form_${card.formId}`.slice(0, 255),
      elements: [
        button('Answer', ANSWER_ID, card.formId, 'primary'),
        button('Decline', DECLINE_ID, card.formId, 'danger'),
      ],
    });
  }
  return {
    text: card.outcome.status === 'pending' ? 'Input requested' : `Input requested: ${outcomeWord(card)}`,
    blocks,
  };
}

const WAIT_TITLES: Record<FormCard['outcome']['status'], string> = {
  pending: 'Authorization needed',
  answered: 'Authorized',
  declined: 'Authorization cancelled',
  expired: 'Authorization timed out',
  cancelled: 'Authorization ended',
  unsupported: 'Authorization ended',
};

/** A call waiting for its owner's MCP OAuth sign-in: the message, and a Cancel button while it waits. */
function renderWaitCard(card: FormCard): SlackMessageBody {
  const title = WAIT_TITLES[card.outcome.status];
  const text = `*${title}* (MCP server ${escapeSlackText(card.source)})\n${escapeSlackText(truncate(card.message, 2_000))}`;
  const blocks: SlackBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, SECTION_CAP) } }];
  if (card.outcome.status === 'pending') {
    blocks.push({
      type: 'actions',
      block_id: `sp_form_${card.formId}`.slice(0, 255),
      elements: [button('Cancel', DECLINE_ID, card.formId, 'danger')],
    });
  }
  return { text: title, blocks };
}

function outcomeLine(card: FormCard): string {
  const outcome = card.outcome;
  switch (outcome.status) {
    case 'pending': {
      const expires = Math.floor(Date.parse(card.expiresAt) / 1000);
      const when = Number.isFinite(expires)
        ? ` before <!date^${expires}^{time}|${escapeSlackText(card.expiresAt)}>`
        : '';
      return `_Click Answer to fill in the form${when}; unanswered requests are declined._`;
    }
    case 'unsupported':
      return `_This form cannot be shown in Slack: ${escapeSlackText(outcome.reason)}. The request was declined._`;
    case 'answered':
    case 'declined':
      return `_${outcome.status === 'answered' ? 'Answered' : 'Declined'} by ${escapeSlackText(outcome.decidedBy)}._`;
    case 'expired':
      return '_No answer in time; the request was declined._';
    case 'cancelled':
      return `_${escapeSlackText(card.source)} withdrew the request._`;
  }
}

function outcomeWord(card: FormCard): string {
  const words = {
    pending: 'pending',
    unsupported: 'cannot be shown',
    answered: 'answered',
    declined: 'declined',
    expired: 'expired',
    cancelled: 'withdrawn',
  };
  return words[card.outcome.status];
}

function button(label: string, actionId: string, value: string, style: 'primary' | 'danger'): SlackBlock {
  return { type: 'button', text: { type: 'plain_text', text: label }, action_id: actionId, value, style };
}

/** The modal for a form: one input block per field (at most SLACK_MAX_FORM_FIELDS), labelled, with hints and values. */
export function buildFormModal(form: FormSpec, context: FormModalContext): Record<string, unknown> {
  let metadata = JSON.stringify({ f: form.formId, r: context.responseUrl, c: context.channelId });
  if (metadata.length > LIMIT.metadata) metadata = JSON.stringify({ f: form.formId, r: '', c: context.channelId });
  const fields = form.fields.slice(0, SLACK_MAX_FORM_FIELDS);
  return {
    type: 'modal',
    callback_id: FORM_CALLBACK_ID,
    private_metadata: metadata,
    title: { type: 'plain_text', text: truncate(form.title, LIMIT.title) || 'Input' },
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: fields.map(inputBlock),
  };
}

function plain(text: string, max: number): Record<string, unknown> {
  return { type: 'plain_text', text: truncate(text, max) };
}

function inputBlock(field: SlackFormField): SlackBlock {
  const block: SlackBlock = {
    type: 'input',
    block_id: field.id,
    optional: !field.required,
    label: plain(field.label || field.id, LIMIT.label),
    element: fitsDropDown(field.choices) ? selectElement(field, field.choices) : textElement(field),
  };
  if (field.placeholder) block.hint = plain(field.placeholder, LIMIT.hint);
  return block;
}

function textElement(field: SlackFormField): SlackBlock {
  const maxLength = Math.min(Math.max(1, field.maxLength), LIMIT.input);
  const element: SlackBlock = {
    type: 'plain_text_input',
    action_id: field.id,
    multiline: field.multiline,
    max_length: maxLength,
  };
  if (field.placeholder) element.placeholder = plain(field.placeholder, LIMIT.placeholder);
  if (field.value) element.initial_value = field.value.slice(0, maxLength);
  return element;
}

/** A drop-down only when every choice can be offered: none may be lost (the text input then lists them instead). */
function fitsDropDown(choices: readonly string[] | undefined): choices is readonly string[] {
  if (choices === undefined || choices.length === 0 || choices.length > LIMIT.options) return false;
  return (
    new Set(choices).size === choices.length &&
    choices.every((choice) => choice.length > 0 && choice.length <= LIMIT.optionValue)
  );
}

function selectElement(field: SlackFormField, choices: readonly string[]): SlackBlock {
  const options = choices.map((choice) => ({ text: plain(choice, LIMIT.optionText), value: choice }));
  const element: SlackBlock = { type: 'static_select', action_id: field.id, options };
  if (field.placeholder) element.placeholder = plain(field.placeholder, LIMIT.placeholder);
  const initial = options.find((option) => option.value === field.value);
  if (initial) element.initial_option = initial;
  return element;
}

/** A submitted form modal: the form id, where private answers go, and the text of every field by field id. */
export interface FormSubmission extends FormModalContext {
  formId: string;
  values: Record<string, string>;
}

/** Reads a submitted view if it is one of our form modals; undefined for anything else. */
export function readFormSubmission(view: {
  callback_id?: string;
  private_metadata?: string;
  state?: unknown;
}): FormSubmission | undefined {
  if (view.callback_id !== FORM_CALLBACK_ID) return undefined;
  const parsed = safeParseJson(view.private_metadata ?? '');
  const meta = parsed.ok && isPlainObject(parsed.value) ? parsed.value : {};
  const formId = typeof meta.f === 'string' ? meta.f : '';
  if (!FORM_ID.test(formId)) return undefined;
  return {
    formId,
    responseUrl: typeof meta.r === 'string' ? meta.r : '',
    channelId: typeof meta.c === 'string' ? meta.c : '',
    values: stateValues(view.state),
  };
}

/** `state.values[block_id][action_id]` → text: a text input's value or a select's chosen option ('' when empty). */
function stateValues(state: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  if (!isPlainObject(state) || !isPlainObject(state.values)) return values;
  for (const [blockId, block] of Object.entries(state.values)) {
    if (!/^f\d{1,3}$/.test(blockId) || !isPlainObject(block)) continue;
    const element = block[blockId];
    if (isPlainObject(element)) values[blockId] = elementText(element);
  }
  return values;
}

function elementText(element: Record<string, unknown>): string {
  if (typeof element.value === 'string') return element.value;
  const selected = element.selected_option;
  return isPlainObject(selected) && typeof selected.value === 'string' ? selected.value : '';
}
