/** Tests for Discord rendering: card buttons and custom ids, decided cards, mention safety, tool lines. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalCard } from '../channel-adapter.js';
import { customId, parseCustomId, renderCard } from './discord-components.js';
import { renderMessage } from './discord-format.js';

const item = {
  callId: 'c1',
  name: 'bash',
  approvalLabel: 'bash',
  header: 'Run: ls -la',
  preview: 'ls -la',
  needsApproval: true,
};
const pending: ApprovalCard = { approvalId: 'a1b2', kind: 'tools', items: [item], outcome: { status: 'pending' } };

type Row = { components: { label: string; style: number; custom_id: string }[] };

describe('discord rendering', () => {
  it('renders a pending tool card with green Approve, grey Always and red Reject carrying the approval id', () => {
    const { embeds, components } = renderCard(pending);
    const buttons = (components[0] as Row).components;
    assert.deepEqual(
      buttons.map((b) => [b.label, b.style]),
      [
        ['Approve', 3],
        ['Always', 2],
        ['Reject', 4],
      ],
    );
    assert.deepEqual(
      buttons.map((b) => parseCustomId(b.custom_id)?.approvalId),
      ['a1b2', 'a1b2', 'a1b2'],
    );
    assert.match(JSON.stringify(embeds), /Run: ls -la/);
  });

  it('removes the buttons and names the decider once decided', () => {
    const decided = renderCard({
      ...pending,
      outcome: { status: 'rejected', decidedBy: 'alice_b', feedback: 'use ```rm``` never' },
    });
    assert.equal(decided.components.length, 0);
    const text = JSON.stringify(decided.embeds);
    assert.match(text, /Rejected/);
    assert.match(text, /alice\\\\_b/);
    assert.doesNotMatch(text, /```/);
  });

  it('renders plan reviews with Approve and Request changes', () => {
    const { components } = renderCard({
      approvalId: 'p1',
      kind: 'plan',
      items: [],
      content: '1. do it',
      outcome: { status: 'pending' },
    });
    assert.deepEqual(
      (components[0] as Row).components.map((b) => b.label),
      ['Approve', 'Request changes'],
    );
  });

  it('parses only custom ids it issued', () => {
    assert.deepEqual(parseCustomId(customId('always', 'abc')), { action: 'always', approvalId: 'abc' });
    assert.deepEqual(parseCustomId('sp:link'), { action: 'link', approvalId: '' });
    assert.equal(parseCustomId('ts:approve'), undefined);
    assert.equal(parseCustomId('sp:approve:'), undefined);
    assert.equal(parseCustomId('sp:explode:abc'), undefined);
  });

  it('never lets a message ping anyone and escapes echoed error text', () => {
    for (const message of [
      { kind: 'text', text: '@everyone look' },
      { kind: 'error', message: 'failed for @here <@123456789012345678>' },
    ] as const) {
      const body = renderMessage(message);
      assert.deepEqual(body.allowed_mentions, { parse: [] });
    }
    const error = renderMessage({ kind: 'error', message: 'failed for @here <@123456789012345678>' }).content;
    assert.ok(error.startsWith('**Error:** '));
    assert.doesNotMatch(error, /@here|<@\d/);
  });

  it('shows a tool call as a compact embed with a neutralised, truncated result', () => {
    const body = renderMessage({
      kind: 'tool-call',
      name: 'bash',
      preview: 'cat x',
      status: 'done',
      output: `${'line\n'.repeat(30)}\`\`\``,
    });
    const embed = body.embeds[0] as { title: string; description: string };
    assert.equal(embed.title, 'bash — Done');
    assert.ok(embed.description.split('\n').length <= 14);
    assert.equal(embed.description.split('```').length - 1, 2, 'only the wrapping fence remains');
  });
});

describe('discord Stop button', () => {
  it('puts a red Stop button under a stoppable live message, and none under plain text', () => {
    const live = renderMessage({ kind: 'text', text: 'streaming…', stoppable: true });
    assert.equal(live.content, 'streaming…');
    assert.deepEqual(
      (live.components as Row[])[0]?.components.map((button) => [button.label, button.style, button.custom_id]),
      [
        ['Stop', 4, 'sp:stop'],
        ['Steer', 2, 'sp:steer'],
      ],
    );
    assert.deepEqual(parseCustomId('sp:stop'), { action: 'stop', approvalId: '' });
    assert.equal(renderMessage({ kind: 'text', text: 'done' }).components, undefined);
  });
});
