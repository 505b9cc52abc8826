/**
 * Steer on the recording adapter with the real agent core: a steer joins the running turn at its next model call
 * (stored as a waiting message until then), only the owner may steer, an idle thread takes it as a message, and a
 * steer the turn never read runs as the next message.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../agent/messages.js';
import { textParts, toolCallParts } from '../../test/fakes/fake-model-provider.js';
import { person, type RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { startRecordingGateway, until, type RecordingGateway } from '../../test/helpers/recording-gateway.js';
import { waitFor } from '../../test/helpers/wait-for.js';

const CHANNEL = 'general';

function userTexts(request: { messages: readonly Message[] } | undefined): string[] {
  return (request?.messages ?? []).flatMap((message) =>
    message.role === 'user' && typeof message.content === 'string' ? [message.content] : [],
  );
}

describe('steer on the recording adapter', () => {
  let fixture: RecordingGateway;
  let adapter: RecordingAdapter;
  const owner = person('s-owner');
  const stranger = person('s-stranger');

  before(async () => {
    fixture = await startRecordingGateway('sp-steer-', {}, { editIntervalMs: 10 });
    adapter = fixture.adapter;
    for (const [who, name] of [
      [owner, 'owner'],
      [stranger, 'stranger'],
    ] as const) {
      const user = await fixture.db.stores.users.createUser(name);
      await fixture.db.stores.users.link('fake', who.id, user.userId);
    }
  });
  after(() => fixture.close());

  const mention = (text: string) =>
    adapter.deliver({
      type: 'message',
      user: owner,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: `m-${text}`,
      text,
      mentioned: true,
    });
  const steer = (threadId: string, message: string, user = owner) =>
    adapter.deliver({
      type: 'command',
      name: 'steer',
      user,
      conversation: { kind: 'thread', channelId: threadId },
      args: { message },
    });
  const workstreamOf = async (threadId: string) => {
    const route = await fixture.db.stores.routes.getRoute('fake', threadId);
    return route === undefined ? undefined : fixture.runtime.manager.get(route.wsId);
  };
  const queuedRows = async () => {
    const { turnJournal } = fixture.db.stores;
    const rows = await Promise.all((await turnJournal.queuedWorkstreams()).map((wsId) => turnJournal.queued(wsId)));
    return rows.flat().map((row) => row.content);
  };

  it('joins the running turn at its next model call, stored as waiting until then; strangers are refused', async () => {
    const { model } = fixture;
    model.enqueue(
      { parts: toolCallParts([{ id: 'c1', name: 'bash', args: { command: 'echo hi' } }]) },
      { parts: textParts('Done, on staging.') },
    );
    const start = model.requests.length;
    await mention('deploy it');
    const threadId = adapter.threads.at(-1)?.id ?? '';
    const card = await until(() => adapter.approvalCards(threadId)[0], 'the approval card');
    assert.deepEqual((await steer(threadId, 'not prod', stranger)).replies, [
      'Only the owner of this workstream can do that.',
    ]);
    assert.match(
      (await steer(threadId, '   ')).replies[0] ?? '',
      /^Write what the running turn should take into account/,
    );
    assert.deepEqual((await steer(threadId, 'use staging, not prod')).replies, [
      'Steer sent: the running turn reads it before its next model call.',
    ]);
    assert.deepEqual(
      await queuedRows(),
      [JSON.stringify('[steer] use staging, not prod')],
      'stored as a waiting message',
    );
    await adapter.deliver({
      type: 'action',
      name: 'approve',
      approvalId: card.approvalId,
      user: owner,
      feedback: null,
    });
    await until(() => adapter.texts(threadId).includes('Done, on staging.'), 'the answer');
    await waitFor(async () => (await workstreamOf(threadId))?.isBusy() === false, 'the turn to end');
    assert.equal(model.requests.length, start + 2, 'one turn of two model calls, no extra turn');
    const second = model.requests[start + 1];
    assert.deepEqual(userTexts(second), ['deploy it', '[steer] use staging, not prod']);
    assert.equal(second?.messages.at(-1)?.role, 'user', 'the steer follows the tool result');
    assert.equal(JSON.stringify(model.requests).split('[steer]').length - 1, 1, 'the first call did not carry it');
    assert.deepEqual(await queuedRows(), [], 'its waiting row went with the history write');
    const wsId = (await fixture.db.stores.routes.getRoute('fake', threadId))?.wsId ?? '';
    const stored = await fixture.db.stores.conversations.load(wsId);
    assert.deepEqual(
      userTexts({ messages: stored }),
      ['deploy it', '[steer] use staging, not prod'],
      'stored in the history',
    );
  });

  it('sends a steer as an ordinary message when no turn runs, and says so', async () => {
    const { model } = fixture;
    model.enqueue({ parts: textParts('First.') }, { parts: textParts('Noted.') });
    await mention('first');
    const threadId = adapter.threads.at(-1)?.id ?? '';
    await until(() => adapter.texts(threadId).includes('First.'), 'the first answer');
    await waitFor(async () => (await workstreamOf(threadId))?.isBusy() === false, 'the turn to end');
    const seen = await steer(threadId, 'remember the tests');
    assert.deepEqual(seen.replies, ['No turn was running, so your steer was sent as an ordinary message.']);
    await until(() => adapter.texts(threadId).includes('Noted.'), 'the answer');
    assert.equal(
      userTexts(model.requests.at(-1)).at(-1),
      'remember the tests',
      'an ordinary message, without the marker',
    );
  });

  it('runs a steer the turn never read as the next message', async () => {
    const { model } = fixture;
    model.enqueue(
      { parts: [{ type: 'text-delta', text: 'thinking' }], hang: true },
      { parts: textParts('Steered answer.') },
    );
    await mention('long answer');
    const threadId = adapter.threads.at(-1)?.id ?? '';
    await until(() => adapter.texts(threadId).some((text) => text.includes('thinking')), 'the streamed text');
    assert.deepEqual((await steer(threadId, 'shorter please')).replies, [
      'Steer sent: the running turn reads it before its next model call.',
    ]);
    await adapter.deliver({
      type: 'command',
      name: 'cancel',
      user: owner,
      conversation: { kind: 'thread', channelId: threadId },
      args: {},
    });
    await until(() => adapter.texts(threadId).includes('Steered answer.'), 'the steer answered as the next message');
    assert.equal(userTexts(model.requests.at(-1)).at(-1), '[steer] shorter please');
    assert.deepEqual(await queuedRows(), []);
  });
});
