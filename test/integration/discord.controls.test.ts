/**
 * End to end over discord.js: model choice (/ask model with autocomplete, /model, channel defaults, kept over a restart),
 * the Stop button after a restart (the interrupted live message loses it; a stale one answers "Nothing is running"), and the registered command options.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESUMING_NOTE } from '../../src/gateway/interrupted-turns.js';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';

const SECOND_CHANNEL = '300000000000000002';
const modelOf = (body: unknown): unknown => (body as { model?: unknown } | undefined)?.model;

describe('discord model choice and Stop', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start({
      channelIds: [CHANNEL_ID, SECOND_CHANNEL],
      models: { other: 'other-model', third: 'third-model' },
      flags: { [`discord.channel_models.${SECOND_CHANNEL}`]: 'third' },
    });
  });
  after(async () => {
    await h.close();
  });

  const replyOf = (id: string) =>
    h.fake.waitFor(() => h.fake.state.interactions.get(id)?.reply, 15_000, 'interaction reply');
  const stopOn = (threadId: string) =>
    h.botMessages(threadId).find((message) => h.button(message, 'Stop') !== undefined);

  it('registers /ask with an autocompleted model option and /model with an autocompleted alias', async () => {
    const commands = (await h.fake.waitFor(
      () => (h.fake.state.commands.length > 0 ? h.fake.state.commands : undefined),
      15_000,
      'commands',
    )) as {
      name: string;
      options?: { name: string; autocomplete?: boolean; required?: boolean }[];
    }[];
    const ask = commands.find((command) => command.name === 'ask');
    assert.deepEqual(
      ask?.options?.find((option) => option.name === 'model'),
      ask?.options?.[1],
    );
    assert.equal(ask?.options?.[1]?.autocomplete, true);
    assert.equal(ask?.options?.[1]?.required, false);
    const model = commands.find((command) => command.name === 'model');
    assert.equal(model?.options?.[0]?.name, 'alias');
    assert.equal(model?.options?.[0]?.autocomplete, true);
  });

  it('autocompletes the configured aliases, those starting with what was typed first', async () => {
    const { user } = await h.linkedUser('400000000000000061', 'amy');
    const typed = h.fake.state.autocomplete('ask', CHANNEL_ID, user, 'model', 'th', { message: 'hi' });
    const choices = await h.fake.waitFor(() => h.fake.state.interactions.get(typed.id)?.choices, 15_000, 'choices');
    assert.deepEqual(choices, [
      { name: 'third (third-model)', value: 'third' },
      { name: 'other (other-model)', value: 'other' },
    ]);
    const all = h.fake.state.autocomplete('model', CHANNEL_ID, user, 'alias', '');
    const every = await h.fake.waitFor(() => h.fake.state.interactions.get(all.id)?.choices, 15_000, 'all choices');
    assert.deepEqual(
      every.map((choice) => choice.value),
      ['fake', 'other', 'third'],
    );
    assert.deepEqual(h.fake.invalidBodies, [], 'autocomplete answers match the API description');
  });

  it('/ask with a model starts the thread on it; an unknown alias is refused with the list and opens nothing', async () => {
    const { user } = await h.linkedUser('400000000000000062', 'bob');
    const threadsBefore = h.fake.state.threadsOf(CHANNEL_ID).length;
    const bad = h.fake.state.slashCommand('ask', CHANNEL_ID, user, { message: 'hello', model: 'gpt-9' });
    assert.equal(
      await replyOf(bad.id),
      'Unknown model "gpt-9". Available models: `fake` (fake-model), `other` (other-model), `third` (third-model).',
    );
    assert.equal(h.fake.state.threadsOf(CHANNEL_ID).length, threadsBefore, 'no thread for a refused /ask');
    h.llm.enqueue({ text: 'Answered by other.' });
    const ask = h.fake.state.slashCommand('ask', CHANNEL_ID, user, { message: 'which one?', model: 'OTHER' });
    assert.match(await replyOf(ask.id), /model `other`/);
    await h.llm.waitFor((llm) => llm.requests.length > 0 && llm.requests.at(-1)?.finished);
    assert.equal(modelOf(h.llm.requests.at(-1)?.body), 'other-model');
  });

  it('a mention in a channel with a default model uses it', async () => {
    const { user } = await h.linkedUser('400000000000000063', 'cy');
    h.llm.enqueue({ text: 'Answered by third.' });
    const message = h.fake.state.injectMessage(SECOND_CHANNEL, user, 'hello there', true);
    await h.fake.waitFor(
      () => h.textMessages(message.id).find((m) => m.content === 'Answered by third.'),
      15_000,
      'answer',
    );
    assert.equal(modelOf(h.llm.requests.at(-1)?.body), 'third-model');
  });

  it('keeps a /model switch over a restart', async () => {
    const { user } = await h.linkedUser('400000000000000064', 'dee');
    h.llm.enqueue({ text: 'First.' });
    const { threadId } = await h.mention(user, 'start');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'First.'), 15_000, 'first answer');
    const stranger = (await h.linkedUser('400000000000000065', 'eve')).user;
    const refused = h.fake.state.slashCommand('model', threadId, stranger, { alias: 'other' });
    assert.equal(await replyOf(refused.id), 'Only the owner of this workstream can do that.');
    const switched = h.fake.state.slashCommand('model', threadId, user, { alias: 'other' });
    assert.equal(await replyOf(switched.id), 'This thread now uses `other`.');
    await h.crash();
    await h.boot();
    h.llm.enqueue({ text: 'After restart.' });
    h.fake.state.injectMessage(threadId, user, 'still there?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'After restart.'),
      15_000,
      'answer after restart',
    );
    assert.equal(modelOf(h.llm.requests.at(-1)?.body), 'other-model');
  });

  it('shows Stop while an answer streams and removes it when the turn ends', async () => {
    const { user } = await h.linkedUser('400000000000000067', 'gus');
    const pieces = Array.from({ length: 20 }, (_, i) => `s${i} `);
    h.llm.enqueue({ text: pieces, delayMs: 30 });
    const { threadId } = await h.mention(user, 'stream a bit');
    await h.fake.waitFor(() => stopOn(threadId), 15_000, 'Stop while streaming');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content.trim() === pieces.join('').trim()),
      15_000,
      'complete answer',
    );
    await h.fake.waitFor(() => !stopOn(threadId), 15_000, 'Stop removed at the end');
    assert.ok(
      h.botMessages(threadId).every((m) => m.components.length === 0),
      'no message keeps a button',
    );
  });

  it('a restart edits the interrupted live message to the kept text and the note, without Stop, and answers once', async () => {
    const { user } = await h.linkedUser('400000000000000066', 'fay');
    // The live message is shown, but the reply to its post is held back: the stop begins before the gateway has its id.
    h.fake.holdReply('POST', /^\/channels\/\d+\/messages$/);
    h.llm.enqueue({ text: ['Thinking hard'], hang: true });
    const { threadId } = await h.mention(user, 'hang on');
    const live = await h.fake.waitFor(
      () => (h.fake.heldCount > 0 ? stopOn(threadId) : undefined),
      15_000,
      'Stop button',
    );
    h.llm.enqueue({ text: 'Answered after the restart.' });
    const stopping = h.gateway.stop();
    h.fake.releaseHeld();
    await stopping;
    await h.crash();
    await h.boot();
    const edited = h.fake.state.messages.get(live.id);
    assert.equal(edited?.content, `Thinking hard\n\n${RESUMING_NOTE}`);
    assert.deepEqual(edited?.components, [], 'the interrupted message keeps no Stop');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Answered after the restart.'),
      15_000,
      'resumed answer',
    );
    await h.fake.waitFor(() => !stopOn(threadId), 15_000, 'no Stop once the resumed turn ended');
    assert.equal(
      h.textMessages(threadId).filter((m) => m.content === 'Answered after the restart.').length,
      1,
      'answered once',
    );
    assert.equal(
      h.textMessages(threadId).filter((m) => m.content.includes('Interrupted by a restart')).length,
      1,
      'one note, on the live message',
    );
  });

  it('a Stop button the restart did not settle answers "Nothing is running" and disappears', async () => {
    const { user } = await h.linkedUser('400000000000000068', 'hal');
    h.llm.enqueue({ text: 'Done.' });
    const { threadId } = await h.mention(user, 'quick one');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Done.'), 15_000, 'answer');
    // The answer's text shows before the edit that takes its own Stop away: a crash in between would leave that Stop
    // too (a second stale button this test does not click), so the turn must be over first.
    await h.fake.waitFor(() => !stopOn(threadId), 15_000, 'the answer without its Stop');
    const stop = [{ type: 1, components: [{ type: 2, style: 4, label: 'Stop', custom_id: 'sp:stop' }] }];
    // A live message the previous process posted but never recorded (killed between the post and its record).
    const stale = h.fake.state.createMessage(threadId, h.fake.state.bot, {
      content: 'Half an answer',
      components: stop,
    });
    await h.crash();
    await h.boot();
    assert.ok(h.button(stale, 'Stop'), 'the unrecorded message still shows Stop');
    const click = h.fake.state.clickButton(stale.id, h.button(stale, 'Stop') ?? '', user);
    assert.equal(await replyOf(click.id), 'Nothing is running.');
    await h.fake.waitFor(() => !stopOn(threadId), 15_000, 'Stop button removed');
    assert.equal(h.fake.state.messages.get(stale.id)?.content, 'Half an answer', 'the text stays');
  });
});
