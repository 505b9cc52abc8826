/** Tests for Slack message bodies: card blocks and buttons, decided cards, escaping of previews, every outbound kind. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalCard, OutboundMessage } from '../channel-adapter.js';
import {
  parseAction,
  parseStopValue,
  renderCard,
  renderSlackMessage,
  STEER_ACTION,
  STOP_ACTION,
  withStopButton,
} from './slack-blocks.js';

const item = (name: string, preview: string) => ({
  callId: 'c1',
  name,
  approvalLabel: name,
  header: '',
  preview,
  needsApproval: true,
});
const card = (overrides: Partial<ApprovalCard> = {}): ApprovalCard => ({
  approvalId: 'ap_1',
  kind: 'tools',
  items: [item('bash', 'echo ```x``` <@U1> & more')],
  outcome: { status: 'pending' },
  ...overrides,
});

describe('renderCard', () => {
  it('shows Approve, Always and Reject buttons carrying the approval id', () => {
    const body = renderCard(card());
    assert.equal(body.text, 'Tool approval required');
    const actions = body.blocks?.find((b) => b.type === 'actions') as {
      elements: { action_id: string; value: string; style?: string; text: { text: string } }[];
    };
    assert.deepEqual(
      actions.elements.map((e) => [e.text.text, e.action_id, e.value, e.style]),
      [
        ['Approve', 'sp:approve', 'ap_1', 'primary'],
        ['Always', 'sp:always', 'ap_1', undefined],
        ['Reject', 'sp:reject', 'ap_1', 'danger'],
      ],
    );
    const section = JSON.stringify(body.blocks?.[0]);
    assert.ok(!section.includes('```x```'), 'fences inside the preview are neutralised');
    assert.ok(!section.includes('<@U1>'), 'mentions inside the preview are escaped');
  });

  it('shows a network card with Allow once, Always here and Deny, and its decision afterwards', () => {
    const network = card({
      kind: 'network',
      items: [{ ...item('bash', ''), header: 'bash wants to reach pypi.org:443 <!channel>' }],
    });
    const body = renderCard(network);
    assert.equal(body.text, 'Network access requested');
    const actions = body.blocks?.find((b) => b.type === 'actions') as {
      elements: { action_id: string; text: { text: string } }[];
    };
    assert.deepEqual(
      actions.elements.map((e) => [e.text.text, e.action_id]),
      [
        ['Allow once', 'sp:approve'],
        ['Always here', 'sp:always'],
        ['Deny', 'sp:deny'],
      ],
    );
    assert.match(JSON.stringify(body.blocks?.[0]), /bash wants to reach pypi\.org:443/);
    assert.ok(!JSON.stringify(body.blocks).includes('<!channel>'), 'the destination text is escaped');
    assert.equal(parseAction('sp:deny', 'ap_1')?.action, 'deny');
    assert.match(
      JSON.stringify(
        renderCard({ ...network, outcome: { status: 'always', decidedBy: 'alice', feedback: null } }).blocks,
      ),
      /Always allowed here by alice/,
    );
  });

  it('replaces the buttons with who decided, plus the feedback', () => {
    const body = renderCard(card({ outcome: { status: 'rejected', decidedBy: 'alice', feedback: 'not now' } }));
    assert.equal(
      body.blocks?.some((b) => b.type === 'actions'),
      false,
    );
    assert.match(JSON.stringify(body.blocks), /Rejected by alice/);
    assert.match(JSON.stringify(body.blocks), /not now/);
  });

  it('renders plan reviews with Approve and Request changes', () => {
    const body = renderCard(card({ kind: 'plan', items: [], content: '1. do it' }));
    const actions = body.blocks?.find((b) => b.type === 'actions') as { elements: { action_id: string }[] };
    assert.deepEqual(
      actions.elements.map((e) => e.action_id),
      ['sp:plan-approve', 'sp:plan-changes'],
    );
    assert.match(JSON.stringify(body.blocks), /Plan Review/);
  });

  it('summarises items beyond the section budget', () => {
    const items = Array.from({ length: 30 }, (_, i) => item(`tool${i}`, 'x'.repeat(500)));
    const section = (renderCard(card({ items })).blocks?.[0] as { text: { text: string } }).text.text;
    assert.ok(section.length <= 3000);
    assert.match(section, /more \(preview truncated\)/);
  });
});

describe('parseAction', () => {
  it('accepts our buttons and rejects anything else', () => {
    assert.deepEqual(parseAction('sp:always', 'ap_1'), { action: 'always', approvalId: 'ap_1' });
    assert.equal(parseAction('sp:explode', 'ap_1'), undefined);
    assert.equal(parseAction('other', 'ap_1'), undefined);
    assert.equal(parseAction('sp:approve', 'bad id!'), undefined);
    assert.equal(parseAction('sp:approve', undefined), undefined);
  });
});

describe('renderSlackMessage', () => {
  it('renders every outbound kind with a non-empty text', () => {
    const messages: OutboundMessage[] = [
      { kind: 'text', text: 'hi' },
      { kind: 'tool-call', name: 'bash', preview: 'ls', status: 'done', output: 'a\nb' },
      { kind: 'tool-result', name: 'bash', output: 'ok', isError: false },
      { kind: 'error', message: 'boom <!here>' },
      { kind: 'notice', code: 'link-hint' },
      { kind: 'approval', card: card() },
      {
        kind: 'form',
        card: {
          formId: 'f1',
          source: 'srv',
          message: 'Your name?',
          fieldLabels: ['Name'],
          expiresAt: '2030-01-01T00:00:00Z',
          outcome: { status: 'pending' },
        },
      },
    ];
    for (const message of messages) assert.ok(renderSlackMessage(message, '/sp').text.length > 0, message.kind);
    assert.match(renderSlackMessage({ kind: 'notice', code: 'link-hint' }, '/sp').text, /`\/sp link`/);
    assert.equal(
      renderSlackMessage({ kind: 'error', message: 'boom <!here>' }, '/sp').text,
      '*Error:* boom &lt;!here&gt;',
    );
  });
});

describe('withStopButton', () => {
  it('keeps the whole text, splits it in sections Slack accepts and adds the Stop button naming the thread', () => {
    const text = `${'a'.repeat(2000)}\n${'b'.repeat(2000)}`;
    const body = withStopButton({ text }, 'C0001:1700000000.000001');
    assert.equal(body.text, text);
    const blocks = body.blocks ?? [];
    const sections = blocks
      .filter((block) => block.type === 'section')
      .map((block) => (block.text as { text: string }).text);
    assert.deepEqual(sections, [`${'a'.repeat(2000)}\n`, 'b'.repeat(2000)]);
    const actions = blocks.at(-1) as { block_id: string; elements: { action_id: string; value: string }[] };
    assert.equal(actions.block_id, 'sp_stop');
    assert.deepEqual(
      actions.elements.map((element) => [element.action_id, element.value]),
      [
        [STOP_ACTION, 'C0001:1700000000.000001'],
        [STEER_ACTION, 'C0001:1700000000.000001'],
      ],
    );
    assert.equal(parseStopValue('C0001:1700000000.000001'), 'C0001:1700000000.000001');
    assert.equal(parseStopValue('C0001'), undefined);
    assert.equal(parseStopValue('C0001:1.1|x'), undefined);
  });
});
