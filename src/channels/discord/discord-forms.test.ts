import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FormCard } from '../channel-adapter.js';
import { formCustomId, formModal, parseFormCustomId, renderFormCard } from './discord-forms.js';

const card: FormCard = {
  formId: 'abc123',
  source: 'bookings',
  message: 'Please give the booking details. @everyone',
  fieldLabels: ['Name', 'Guests'],
  expiresAt: '2030-01-01T00:00:00.000Z',
  outcome: { status: 'pending' },
};

type Row = { components: Record<string, unknown>[] };

describe('discord form cards', () => {
  it('renders a pending card with the request, the fields, the deadline and Answer/Decline buttons', () => {
    const body = renderFormCard(card);
    const text = JSON.stringify(body.embeds);
    assert.match(text, /Input Requested/);
    assert.match(text, /Fields:\*\* Name, Guests/);
    assert.match(text, /<t:1893456000:t>/);
    assert.doesNotMatch(text, /@everyone/, 'mass mentions are made inert');
    const buttons = (body.components as Row[])[0]?.components ?? [];
    assert.deepEqual(
      buttons.map((b) => [b.label, b.custom_id]),
      [
        ['Answer', 'sp:form-answer:abc123'],
        ['Decline', 'sp:form-decline:abc123'],
      ],
    );
  });

  it('shows who answered, or why the form cannot be shown, without buttons', () => {
    const answered = renderFormCard({ ...card, outcome: { status: 'answered', decidedBy: 'alice' } });
    assert.equal(answered.components.length, 0);
    assert.match(JSON.stringify(answered.embeds), /Answered by.*alice/);
    const unsupported = renderFormCard({
      ...card,
      fieldLabels: [],
      outcome: { status: 'unsupported', reason: 'it asks for 9 fields' },
    });
    assert.equal(unsupported.components.length, 0);
    assert.match(
      JSON.stringify(unsupported.embeds),
      /Cannot Be Shown Here[\s\S]*cannot be shown in Discord: it asks for 9 fields\. The request from bookings was declined/,
    );
    assert.match(JSON.stringify(renderFormCard({ ...card, outcome: { status: 'expired' } }).embeds), /Expired/);
  });

  it('builds a modal of labelled text inputs within Discord limits', () => {
    const long = 'L'.repeat(80);
    const modal = formModal({
      formId: 'abc123',
      title: `Input for ${long}`,
      fields: [
        {
          id: 'f0',
          label: long,
          required: true,
          placeholder: long + long,
          value: '',
          multiline: false,
          maxLength: 4000,
        },
        {
          id: 'f1',
          label: 'Guests',
          required: false,
          placeholder: 'A whole number',
          value: '2',
          multiline: true,
          maxLength: 10,
        },
      ],
    });
    assert.equal(modal.custom_id, 'sp:form-submit:abc123');
    assert.equal(String(modal.title).length, 45);
    const inputs = (modal.components as Row[]).map((row) => row.components[0] ?? {});
    assert.equal(String(inputs[0]?.label).length, 45);
    assert.equal(String(inputs[0]?.placeholder).length, 100);
    assert.equal(inputs[0]?.value, undefined);
    assert.deepEqual(
      [inputs[1]?.style, inputs[1]?.value, inputs[1]?.max_length, inputs[1]?.required],
      [2, '2', 10, false],
    );
  });

  it('parses only the form custom ids it issued', () => {
    assert.deepEqual(parseFormCustomId(formCustomId('form-submit', 'abc123')), {
      action: 'form-submit',
      formId: 'abc123',
    });
    assert.equal(parseFormCustomId('sp:approve:abc123'), undefined);
    assert.equal(parseFormCustomId('sp:form-answer:bad id'), undefined);
    assert.equal(parseFormCustomId('sp:form-answer:abc:extra'), undefined);
  });
});
