/** Slack modals (views.open): rejection / plan feedback, account linking and steer, and reading their submissions back. */
import { isPlainObject, safeParseJson } from '../../shared/json.js';
import { parseStopValue } from './slack-blocks.js';

export type ModalKind = 'reject' | 'plan-changes' | 'link' | 'steer';

/** What a modal remembers between opening and submission (Slack hands `private_metadata` back verbatim). */
export interface ModalContext {
  kind: ModalKind;
  /** Approval id for feedback modals; the thread's route key for the steer modal; '' for the link modal. */
  approvalId: string;
  /** Where the private answer goes: the `response_url` of the click or command that opened the modal. */
  responseUrl: string;
  /** Channel the click or command came from (fallback for the private answer). */
  channelId: string;
}

const CALLBACK_PREFIX = 'sp:';
const KINDS: readonly ModalKind[] = ['reject', 'plan-changes', 'link', 'steer'];
/** The single input of each kind of modal. */
const FIELD: Record<ModalKind, string> = {
  reject: 'feedback',
  'plan-changes': 'feedback',
  link: 'token',
  steer: 'steer',
};

/** A Block Kit modal view for `context`. */
export function buildModal(context: ModalContext): Record<string, unknown> {
  const metadata = JSON.stringify({ a: context.approvalId, r: context.responseUrl, c: context.channelId });
  const base = {
    type: 'modal',
    callback_id: `${CALLBACK_PREFIX}${context.kind}`,
    private_metadata:
      metadata.length <= 3_000 ? metadata : JSON.stringify({ a: context.approvalId, r: '', c: context.channelId }),
    submit: { type: 'plain_text', text: 'Send' },
    close: { type: 'plain_text', text: 'Cancel' },
  };
  if (context.kind === 'link') {
    return {
      ...base,
      title: { type: 'plain_text', text: 'Link Account' },
      blocks: [
        input('token', 'API Token', {
          multiline: false,
          optional: false,
          maxLength: 200,
          placeholder: 'Paste your sp_... API token',
        }),
      ],
    };
  }
  if (context.kind === 'steer') {
    return {
      ...base,
      title: { type: 'plain_text', text: 'Steer the turn' },
      blocks: [
        input('steer', 'What should the agent take into account?', {
          multiline: true,
          optional: false,
          maxLength: 2_000,
        }),
      ],
    };
  }
  const plan = context.kind === 'plan-changes';
  return {
    ...base,
    title: { type: 'plain_text', text: plan ? 'Request Changes' : 'Reject' },
    blocks: [
      input('feedback', plan ? 'What should change?' : 'Feedback for the agent (optional)', {
        multiline: true,
        optional: !plan,
        maxLength: 2_000,
      }),
    ],
  };
}

function input(
  id: string,
  label: string,
  options: { multiline: boolean; optional: boolean; maxLength: number; placeholder?: string },
): Record<string, unknown> {
  const element: Record<string, unknown> = {
    type: 'plain_text_input',
    action_id: id,
    multiline: options.multiline,
    max_length: options.maxLength,
  };
  if (options.placeholder) element.placeholder = { type: 'plain_text', text: options.placeholder };
  return {
    type: 'input',
    block_id: id,
    optional: options.optional,
    label: { type: 'plain_text', text: label },
    element,
  };
}

/** Reads a submitted view we issued: its context and the text of its single input; undefined for foreign views. */
export function readSubmission(view: {
  callback_id?: string;
  private_metadata?: string;
  state?: unknown;
}): { context: ModalContext; value: string } | undefined {
  const callback = view.callback_id ?? '';
  const kind = callback.slice(CALLBACK_PREFIX.length) as ModalKind;
  if (!callback.startsWith(CALLBACK_PREFIX) || !KINDS.includes(kind)) return undefined;
  const parsed = safeParseJson(view.private_metadata ?? '');
  const meta = parsed.ok && isPlainObject(parsed.value) ? parsed.value : {};
  const approvalId = typeof meta.a === 'string' ? meta.a : '';
  const valid =
    kind === 'link' ||
    (kind === 'steer' ? parseStopValue(approvalId) !== undefined : /^[A-Za-z0-9_-]{1,64}$/.test(approvalId));
  if (!valid) return undefined;
  const field = FIELD[kind];
  return {
    context: {
      kind,
      approvalId,
      responseUrl: typeof meta.r === 'string' ? meta.r : '',
      channelId: typeof meta.c === 'string' ? meta.c : '',
    },
    value: inputValue(view.state, field),
  };
}

function inputValue(state: unknown, id: string): string {
  if (!isPlainObject(state) || !isPlainObject(state.values)) return '';
  const block = state.values[id];
  const element = isPlainObject(block) ? block[id] : undefined;
  return isPlainObject(element) && typeof element.value === 'string' ? element.value : '';
}
