import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { InboundEvent } from '../channel-adapter.js';
import { createSilentLogger } from '../../shared/logger.js';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { TerminalAdapter } from './terminal-adapter.js';
import { parseApprovalAnswer, renderEdit } from './terminal-format.js';

function started(): { adapter: TerminalAdapter; input: PassThrough; printed: () => string; events: InboundEvent[] } {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const adapter = new TerminalAdapter({ input, output, logger: createSilentLogger() });
  const events: InboundEvent[] = [];
  void adapter.start(async (event) => {
    events.push(event);
    if (event.type === 'command') await event.respond.reply(`did ${event.name}`);
    if (event.type === 'action') await event.respond.reply(`${event.name}: ${event.feedback ?? ''}`);
  }, AbortSignal.timeout(10_000));
  return { adapter, input, printed: () => text, events };
}

const card = (kind: 'tools' | 'plan' | 'network') =>
  ({ kind: 'approval', card: { approvalId: 'a1', kind, items: [{ callId: 'c1', name: 'bash', approvalLabel: 'bash', header: 'bash: ls', preview: '', needsApproval: true }], content: 'the plan', outcome: { status: 'pending' } } }) as const;

describe('terminal adapter', () => {
  it('turns lines into direct messages of one conversation and commands; /help is its own; /quit ends it', async () => {
    const { adapter, input, printed, events } = started();
    input.write('hello there\n/model other\n/new\n/help\n/quit\n');
    await adapter.ended;
    assert.deepEqual(events.map((event) => event.type), ['message', 'command', 'command']);
    const [message, model, close] = events;
    assert.equal(message?.type === 'message' && message.conversation.kind, 'direct');
    assert.equal(model?.type === 'command' && `${model.name} ${model.args.model ?? ''}`, 'model other');
    assert.equal(close?.type === 'command' && close.name, 'close');
    assert.match(printed(), /did model[\s\S]*did close[\s\S]*\/status\s+model, token use/);
  });

  it('asks a pending card at the prompt and sends the typed answer as the click', async () => {
    const { adapter, input, printed, events } = started();
    await adapter.post('terminal', card('plan'));
    assert.match(printed(), /the plan\nApprove the plan\? /);
    input.write('cover the metrics too\n');
    await waitFor(() => events.length === 1, 'the click');
    const click = events[0];
    assert.equal(click?.type === 'action' && `${click.name}|${click.feedback ?? ''}`, 'plan-changes|cover the metrics too');
    await adapter.post('terminal', card('network'));
    input.write('n\n');
    await waitFor(() => events.length === 2, 'the deny');
    assert.equal(events[1]?.type === 'action' && events[1].name, 'deny');
    input.end();
    await adapter.ended;
  });

  it('refuses a card left waiting when input ends', async () => {
    const { adapter, input, events } = started();
    await adapter.post('terminal', card('tools'));
    input.end();
    await adapter.ended;
    assert.equal(events[0]?.type === 'action' && events[0].name, 'reject');
  });

  it('waits for an MCP sign-in at the prompt: c cancels it; once signed in elsewhere the next line is a message again', async () => {
    const { adapter, input, printed, events } = started();
    const wait = { formId: 'oauth-w1', purpose: 'authorization', source: 'linear', message: 'This call waits for a sign-in.', fieldLabels: [], expiresAt: '2026-12-05T10:00:00.000Z', outcome: { status: 'pending' } } as const;
    const first = await adapter.post('terminal', { kind: 'form', card: wait });
    assert.match(printed(), /type c to cancel it: $/);
    input.write('not yet\nc\n');
    await waitFor(() => events.length === 1, 'the cancel');
    assert.equal(events[0]?.type === 'form' && `${events[0].action} ${events[0].formId}`, 'decline oauth-w1');
    await adapter.edit('terminal', first, { kind: 'form', card: { ...wait, outcome: { status: 'declined', decidedBy: 'u1' } } });
    const second = await adapter.post('terminal', { kind: 'form', card: { ...wait, formId: 'oauth-w2' } });
    await adapter.edit('terminal', second, { kind: 'form', card: { ...wait, formId: 'oauth-w2', outcome: { status: 'answered', decidedBy: 'u1' } } });
    input.write('thanks\n');
    await waitFor(() => events.length === 2, 'the message');
    assert.equal(events[1]?.type === 'message' && events[1].text, 'thanks');
    input.end();
    await adapter.ended;
  });

  it('reads approval answers and shows what an edit adds', () => {
    assert.deepEqual(parseApprovalAnswer('y, but only once'), { approved: true, always: false, feedback: 'but only once' });
    assert.deepEqual(parseApprovalAnswer('always'), { approved: true, always: true, feedback: null });
    assert.deepEqual(parseApprovalAnswer('use npm ci instead'), { approved: false, always: false, feedback: 'use npm ci instead' });
    const running = { kind: 'tool-call', name: 'bash', preview: 'ls', status: 'running' } as const;
    assert.equal(renderEdit(running, { ...running, status: 'done', output: 'a.txt' }), '✓ bash\n    a.txt');
    assert.equal(renderEdit({ kind: 'text', text: 'Hel' }, { kind: 'text', text: 'Hello' }), 'lo');
    assert.equal(renderEdit({ kind: 'text', text: 'Hel' }, { kind: 'text', text: 'Hel' }), '');
  });
});
