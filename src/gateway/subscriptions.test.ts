/**
 * A binding's lifetime on the recording adapter: it lives from a conversation's message to the workstream's `idle`, it
 * is not dropped while something is still being shown, and a later message binds the thread again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentEvent } from '../agent/events.js';
import type { Workstream } from '../agent/workstream-api.js';
import type { OutboundMessage } from '../channels/channel-adapter.js';
import { textParts, toolCallParts } from '../../test/fakes/fake-model-provider.js';
import { person, type RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { startRecordingGateway, until, type RecordingGateway } from '../../test/helpers/recording-gateway.js';

const CHANNEL = 'general';

describe('subscriptions: a binding follows the workstream’s idle signal', () => {
  let fixture: RecordingGateway;
  let adapter: RecordingAdapter;
  const owner = person('p-owner');

  before(async () => {
    fixture = await startRecordingGateway('sp-subs-', {}, { editIntervalMs: 10 });
    ({ adapter } = fixture);
    const user = await fixture.db.stores.users.createUser('owner');
    await fixture.db.stores.users.link('fake', owner.id, user.userId);
  });
  after(() => fixture.close());

  const bindings = (): number => fixture.gateway.status().workstreams;
  const mention = async (text: string): Promise<string> => {
    await adapter.deliver({
      type: 'message',
      user: owner,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: `m-${text}`,
      text,
      mentioned: true,
    });
    return adapter.threads.at(-1)?.id ?? '';
  };
  const say = (threadId: string, text: string) =>
    adapter.deliver({
      type: 'message',
      user: owner,
      conversation: { kind: 'thread', channelId: threadId },
      messageId: `m-${text}`,
      text,
      mentioned: false,
    });
  /** The thread's live workstream, and a promise for its next `idle` (seen after the gateway's own handler). */
  const watch = async (threadId: string): Promise<{ ws: Workstream; idle: () => Promise<void> }> => {
    const route = await fixture.db.stores.routes.getRoute('fake', threadId);
    const ws = route ? await fixture.runtime.manager.get(route.wsId) : undefined;
    assert.ok(ws, 'the thread has a live workstream');
    const waiting: Array<() => void> = [];
    ws.subscribe((event: AgentEvent) => {
      if (event.type === 'idle') for (const resolve of waiting.splice(0)) resolve();
    });
    return { ws, idle: () => new Promise<void>((resolve) => waiting.push(resolve)) };
  };

  it('keeps the binding through queued turns and releases it at the idle after the last one', async () => {
    fixture.model.enqueue(
      { parts: [{ type: 'text-delta', text: 'Working' }], hang: true },
      { parts: textParts('Second answer.') },
    );
    const threadId = await mention('long job');
    const { ws, idle } = await watch(threadId);
    await say(threadId, 'and then this');
    await until(() => adapter.texts(threadId).includes('Working'), 'the first turn streaming');
    assert.equal(bindings(), 1);
    const drained = idle();
    ws.cancel();
    await until(() => adapter.texts(threadId).includes('Second answer.'), 'the queued message answered');
    await drained;
    await until(() => bindings() === 0, 'the binding released at idle');
  });

  it('does not release the binding while the approval card is still being edited, and does once it is shown', async () => {
    fixture.model.enqueue(
      { parts: toolCallParts([{ id: 'c1', name: 'bash', args: { command: 'echo hi' } }]) },
      { parts: textParts('Done.') },
    );
    const threadId = await mention('run it');
    const card = await until(() => adapter.approvalCards(threadId)[0], 'the approval card');
    const { idle } = await watch(threadId);
    // The card's edit to its decided state waits here, as a slow or rate-limited platform call would.
    let letEditGo!: () => void;
    const editGate = new Promise<void>((resolve) => (letEditGo = resolve));
    const edit = adapter.edit.bind(adapter);
    adapter.edit = async (channelId: string, messageId: string, message: OutboundMessage) => {
      if (message.kind === 'approval') await editGate;
      return edit(channelId, messageId, message);
    };
    const drained = idle();
    const click = await adapter.deliver({
      type: 'action',
      name: 'approve',
      approvalId: card.approvalId,
      user: owner,
      feedback: null,
    });
    assert.deepEqual(click.replies, ['Approved.']);
    await drained;
    assert.equal(bindings(), 1, 'the workstream is idle, but its card is still being shown');
    assert.equal(adapter.texts(threadId).includes('Done.'), false, 'the answer waits behind the card in the renderer');
    letEditGo();
    await until(() => adapter.texts(threadId).includes('Done.'), 'the answer after the card');
    await until(() => bindings() === 0, 'released once everything was shown');
    assert.deepEqual(adapter.approvalCards(threadId)[0]?.outcome, {
      status: 'approved',
      decidedBy: 'owner',
      feedback: null,
    });
  });

  it('binds the thread again for a message after idle, answers it and releases it again', async () => {
    fixture.model.enqueue({ parts: textParts('First.') });
    const threadId = await mention('hello');
    await until(() => adapter.texts(threadId).includes('First.'), 'the first answer');
    await until(() => bindings() === 0, 'released after the first turn');
    fixture.model.enqueue({ parts: textParts('Again.') });
    await say(threadId, 'still there?');
    await until(() => adapter.texts(threadId).includes('Again.'), 'the answer after idle');
    await until(() => bindings() === 0, 'released after the second turn');
  });
});
