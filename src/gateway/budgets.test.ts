/**
 * Token usage and daily budgets (docs/design/usage.md) on the recording adapter with the real gateway and agent core:
 * a turn's usage lands in usage_daily with its owner and model; a spent budget refuses the next turn before the model
 * call, with a note naming the reset; a per-user override of 0 lifts it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { textParts } from '../../test/fakes/fake-model-provider.js';
import { person, type RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { startRecordingGateway, until, type RecordingGateway } from '../../test/helpers/recording-gateway.js';
import { waitFor } from '../../test/helpers/wait-for.js';

const CHANNEL = 'general';
const spender = person('p-spender', 'Spender');
const unlimited = person('p-unlimited', 'Unlimited');

describe('daily token budgets', () => {
  let fixture: RecordingGateway;
  let adapter: RecordingAdapter;
  const ids = new Map<string, string>();
  before(async () => {
    fixture = await startRecordingGateway('sp-gw-budget-', { 'budgets.user_daily_tokens': 100, 'budgets.users': { unlimited: 0 } }, { editIntervalMs: 10 });
    adapter = fixture.adapter;
    for (const [who, name] of [[spender, 'spender'], [unlimited, 'unlimited']] as const) {
      const user = await fixture.db.stores.users.createUser(name);
      await fixture.db.stores.users.link('fake', who.id, user.userId);
      ids.set(name, user.userId);
    }
  });
  after(() => fixture.close());

  /** Starts a thread with a mention; resolves with its id once `answer` shows. */
  async function start(who: typeof spender, messageId: string, answer: string): Promise<string> {
    await adapter.deliver({ type: 'message', user: who, conversation: { kind: 'channel', channelId: CHANNEL }, messageId, text: 'hi', mentioned: true });
    const threadId = adapter.threads.at(-1)?.id ?? '';
    await until(() => adapter.texts(threadId).some((text) => text.includes(answer)), answer);
    return threadId;
  }
  const say = (who: typeof spender, threadId: string, messageId: string) =>
    adapter.deliver({ type: 'message', user: who, conversation: { kind: 'thread', channelId: threadId }, messageId, text: 'more please', mentioned: false });

  it('records the turn and refuses the next one once the day\'s tokens reach the budget, naming the reset', async () => {
    fixture.model.enqueue({ parts: textParts('First answer.', { inputTokens: 80, outputTokens: 30 }) });
    const threadId = await start(spender, 'm1', 'First answer.');
    const today = new Date().toISOString().slice(0, 10);
    const line = await waitFor(async () => (await fixture.db.stores.usage.report('user', today)).find((row) => row.key === ids.get('spender')), 'the usage row');
    assert.deepEqual([line.label, line.turns, line.inputTokens, line.outputTokens], ['spender', 1, 80, 30]);
    assert.deepEqual((await fixture.db.stores.usage.report('model', today)).map((row) => row.key), ['m']);

    const requests = fixture.model.requests.length;
    await say(spender, threadId, 'm2');
    const note = await until(() => adapter.texts(threadId).find((text) => text.includes('budget')), 'the budget note');
    assert.match(note, /daily token budget \(100 tokens\) is spent.*resets at 00:00 UTC, in \d+ (h|min)/);
    assert.equal(fixture.model.requests.length, requests, 'the model was not called');
    const history = await fixture.db.stores.conversations.load((await fixture.db.stores.routes.getRoute('fake', threadId))?.wsId ?? '');
    assert.deepEqual(history.slice(-2).map((message) => message.role), ['user', 'assistant'], 'the message is kept, answered by the note');
  });

  it('a per-user budget of 0 means none', async () => {
    fixture.model.enqueue({ parts: textParts('Big answer.', { inputTokens: 5000, outputTokens: 500 }) }, { parts: textParts('Still answering.') });
    const threadId = await start(unlimited, 'u1', 'Big answer.');
    await say(unlimited, threadId, 'u2');
    await until(() => adapter.texts(threadId).some((text) => text.includes('Still answering.')), 'the second answer');
    assert.ok(!adapter.texts(threadId).some((text) => text.includes('budget')));
  });
});

describe('daily token budgets per channel', () => {
  let fixture: RecordingGateway;
  let adapter: RecordingAdapter;
  before(async () => {
    // The recording adapter's first thread is `general/t1`: a route without `<channel>:` is its own channel.
    fixture = await startRecordingGateway('sp-gw-budget-ch-', { 'budgets.channels': { 'fake:general/t1': 50 } }, { editIntervalMs: 10 });
    adapter = fixture.adapter;
    const user = await fixture.db.stores.users.createUser('spender');
    await fixture.db.stores.users.link('fake', spender.id, user.userId);
  });
  after(() => fixture.close());

  it('refuses new turns in a channel whose budget is spent, and only there', async () => {
    fixture.model.enqueue({ parts: textParts('Channel answer.', { inputTokens: 40, outputTokens: 20 }) });
    await adapter.deliver({ type: 'message', user: spender, conversation: { kind: 'channel', channelId: CHANNEL }, messageId: 'c1', text: 'hi', mentioned: true });
    const threadId = adapter.threads.at(-1)?.id ?? '';
    assert.equal(threadId, 'general/t1');
    await until(() => adapter.texts(threadId).includes('Channel answer.'), 'the first answer');
    const today = new Date().toISOString().slice(0, 10);
    await waitFor(async () => (await fixture.db.stores.usage.channelTokensOn('fake:general/t1', today)) === 60, 'the channel usage');
    await adapter.deliver({ type: 'message', user: spender, conversation: { kind: 'thread', channelId: threadId }, messageId: 'c2', text: 'more', mentioned: false });
    const note = await until(() => adapter.texts(threadId).find((text) => text.includes('budget')), 'the channel budget note');
    assert.match(note, /^This channel's daily token budget \(50 tokens\) is spent/);
    fixture.model.enqueue({ parts: textParts('Other thread answer.') });
    await adapter.deliver({ type: 'message', user: spender, conversation: { kind: 'channel', channelId: CHANNEL }, messageId: 'c3', text: 'hi again', mentioned: true });
    const other = adapter.threads.at(-1)?.id ?? '';
    await until(() => adapter.texts(other).includes('Other thread answer.'), 'the other thread\'s answer');
  });
});
