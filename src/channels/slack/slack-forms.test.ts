/** Tests for Slack form cards and modals: buttons carrying the form id, outcomes, Slack's limits, reading submissions. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FormCard, FormField, FormSpec } from '../channel-adapter.js';
import {
  buildFormModal,
  parseFormAction,
  readFormSubmission,
  renderFormCard,
  SLACK_MAX_FORM_FIELDS,
  type SlackFormField,
} from './slack-forms.js';

const card = (overrides: Partial<FormCard> = {}): FormCard => ({
  formId: 'el_1',
  source: 'booking',
  message: 'Details <!channel> ```x```',
  fieldLabels: ['Name', 'Guests'],
  expiresAt: '2030-01-01T12:00:00.000Z',
  outcome: { status: 'pending' },
  ...overrides,
});
const field = (id: string, overrides: Partial<FormField> = {}): FormField => ({
  id,
  label: `Label ${id}`,
  required: true,
  placeholder: '',
  value: '',
  multiline: false,
  maxLength: 100,
  ...overrides,
});
const spec = (fields: readonly FormField[], title = 'Input for booking'): FormSpec => ({
  formId: 'el_1',
  title,
  fields,
});
type Block = {
  type: string;
  block_id?: string;
  optional?: boolean;
  label?: { text: string };
  hint?: { text: string };
  element?: Record<string, unknown>;
  elements?: Record<string, unknown>[];
};

describe('renderFormCard', () => {
  it('shows an authorization wait with one Cancel button (a decline click) while pending, and none after', () => {
    const waiting = card({
      formId: 'oauth-abc_123',
      purpose: 'authorization',
      message: 'This call waits until its owner signs in.',
      fieldLabels: [],
    });
    const buttons = (renderFormCard(waiting).blocks as Block[]).find((b) => b.type === 'actions')?.elements ?? [];
    assert.deepEqual(
      buttons.map((b) => [(b.text as { text: string }).text, b.action_id, b.value]),
      [['Cancel', 'sp:form-decline', 'oauth-abc_123']],
    );
    assert.deepEqual(parseFormAction('sp:form-decline', 'oauth-abc_123'), {
      action: 'decline',
      formId: 'oauth-abc_123',
    });
    const ended = renderFormCard({ ...waiting, outcome: { status: 'declined', decidedBy: '' } });
    assert.equal(ended.text, 'Authorization cancelled');
    assert.equal(
      (ended.blocks as Block[]).some((b) => b.type === 'actions'),
      false,
    );
  });

  it('shows Answer and Decline buttons carrying the form id while pending, with the deadline and escaped text', () => {
    const body = renderFormCard(card());
    const blocks = body.blocks as Block[];
    const buttons = blocks.find((b) => b.type === 'actions')?.elements ?? [];
    assert.deepEqual(
      buttons.map((b) => [(b.text as { text: string }).text, b.action_id, b.value, b.style]),
      [
        ['Answer', 'sp:form-answer', 'el_1', 'primary'],
        ['Decline', 'sp:form-decline', 'el_1', 'danger'],
      ],
    );
    const section = JSON.stringify(blocks[0]);
    assert.match(section, /booking/);
    assert.match(section, /Name, Guests/);
    assert.match(section, /<!date\^1893499200\^\{time\}\|/, "the deadline is shown in the reader's time zone");
    assert.ok(!section.includes('<!channel>'), 'mentions in the request are escaped');
    assert.ok(!section.includes('```x```'), 'fences in the request are neutralised');
  });

  it('replaces the buttons with the outcome', () => {
    const answered = renderFormCard(card({ outcome: { status: 'answered', decidedBy: 'alice' } }));
    assert.equal(
      answered.blocks?.some((b) => b.type === 'actions'),
      false,
    );
    assert.match(JSON.stringify(answered.blocks), /Answered by alice/);
    assert.match(
      JSON.stringify(renderFormCard(card({ outcome: { status: 'declined', decidedBy: 'bob' } })).blocks),
      /Declined by bob/,
    );
    assert.match(JSON.stringify(renderFormCard(card({ outcome: { status: 'expired' } })).blocks), /No answer in time/);
    assert.match(
      JSON.stringify(renderFormCard(card({ outcome: { status: 'cancelled' } })).blocks),
      /booking withdrew the request/,
    );
    const unsupported = renderFormCard(card({ outcome: { status: 'unsupported', reason: 'too many fields' } }));
    assert.match(JSON.stringify(unsupported.blocks), /cannot be shown in Slack: too many fields/);
    assert.equal(
      unsupported.blocks?.some((b) => b.type === 'actions'),
      false,
    );
  });
});

describe('parseFormAction', () => {
  it('accepts only our form buttons with a well-formed form id', () => {
    assert.deepEqual(parseFormAction('sp:form-answer', 'el_1'), { action: 'open', formId: 'el_1' });
    assert.deepEqual(parseFormAction('sp:form-decline', 'el_1'), { action: 'decline', formId: 'el_1' });
    assert.equal(parseFormAction('sp:approve', 'el_1'), undefined);
    assert.equal(parseFormAction('sp:form-answer', 'bad id!'), undefined);
    assert.equal(parseFormAction('sp:form-answer', undefined), undefined);
  });
});

describe('buildFormModal', () => {
  it('has one input per field with labels, hints, placeholders, pre-filled values and optional flags', () => {
    const view = buildFormModal(
      spec([field('f0'), field('f1', { required: false, placeholder: 'A whole number from 1 to 12', value: '2' })]),
      { responseUrl: 'https://x/r', channelId: 'C1' },
    );
    assert.equal(view.callback_id, 'sp:form');
    const blocks = view.blocks as Block[];
    assert.deepEqual(
      blocks.map((b) => [b.block_id, b.label?.text, b.optional]),
      [
        ['f0', 'Label f0', false],
        ['f1', 'Label f1', true],
      ],
    );
    assert.equal(blocks[1]?.hint?.text, 'A whole number from 1 to 12');
    assert.deepEqual(blocks[1]?.element, {
      type: 'plain_text_input',
      action_id: 'f1',
      multiline: false,
      max_length: 100,
      placeholder: { type: 'plain_text', text: 'A whole number from 1 to 12' },
      initial_value: '2',
    });
    assert.equal(blocks[0]?.hint, undefined);
  });

  it('keeps within Slack limits: title, placeholder, input length, field count', () => {
    const long = 'p'.repeat(400);
    const many = Array.from({ length: SLACK_MAX_FORM_FIELDS + 3 }, (_, index) =>
      field(`f${index}`, { placeholder: long, maxLength: 4000, value: 'v'.repeat(3500) }),
    );
    const view = buildFormModal(spec(many, 'Input for a-server-with-a-long-name'), {
      responseUrl: '',
      channelId: 'C1',
    });
    assert.ok((view.title as { text: string }).text.length <= 24);
    const blocks = view.blocks as Block[];
    assert.equal(blocks.length, SLACK_MAX_FORM_FIELDS);
    const element = blocks[0]?.element ?? {};
    assert.equal(element.max_length, 3000);
    assert.ok(String(element.initial_value).length <= 3000);
    assert.ok((element.placeholder as { text: string }).text.length <= 150);
  });

  it('offers a drop-down for a field with choices', () => {
    const choice: SlackFormField = { ...field('f0', { value: '19:30' }), choices: ['18:00', '19:30'] };
    const element =
      (buildFormModal(spec([choice]), { responseUrl: '', channelId: 'C1' }).blocks as Block[])[0]?.element ?? {};
    assert.equal(element.type, 'static_select');
    assert.deepEqual(
      (element.options as { value: string }[]).map((o) => o.value),
      ['18:00', '19:30'],
    );
    assert.deepEqual((element.initial_option as { value: string }).value, '19:30');
  });
});

describe('readFormSubmission', () => {
  const view = buildFormModal(spec([field('f0'), field('f1')]), { responseUrl: 'https://x/r', channelId: 'C1' });
  const state = {
    values: {
      f0: { f0: { type: 'plain_text_input', value: 'Ada' } },
      f1: { f1: { type: 'static_select', selected_option: { value: '19:30' } } },
      f2: { f2: { type: 'plain_text_input', value: null } },
    },
  };

  it('reads the form id, where to answer, and text or chosen option by field id (empty for untouched)', () => {
    const read = readFormSubmission({
      callback_id: view.callback_id as string,
      private_metadata: view.private_metadata as string,
      state,
    });
    assert.deepEqual(read, {
      formId: 'el_1',
      responseUrl: 'https://x/r',
      channelId: 'C1',
      values: { f0: 'Ada', f1: '19:30', f2: '' },
    });
  });

  it('ignores other views and tampered metadata', () => {
    assert.equal(
      readFormSubmission({ callback_id: 'sp:reject', private_metadata: view.private_metadata as string, state }),
      undefined,
    );
    assert.equal(readFormSubmission({ callback_id: 'sp:form', private_metadata: '{"f":"../x"}', state }), undefined);
    assert.equal(readFormSubmission({ callback_id: 'sp:form', private_metadata: 'not json', state }), undefined);
  });
});
