/**
 * End to end over bolt: `!status`, `!cancel`, `!model`, `!close` typed in a thread, `/sandpiper ask --model`, the
 * per-channel default model, a Stop click whose value names another channel, and the live message after a restart.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESUMING_NOTE } from '../../src/gateway/interrupted-turns.js';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';

const DEFAULTED = 'C0002';
const modelOf = (body: unknown): unknown => (body as { model?: unknown } | undefined)?.model;

describe('slack thread commands and model choice', () => {
  let h: SlackHarness;
  before(async () => {
    h = await SlackHarness.start({
      models: { other: 'other-model' },
      flags: { [`slack.channel_models.${DEFAULTED}`]: 'other' },
    });
  });
  after(async () => {
    await h.close();
  });

  /** The `count`-th ephemeral message a user got (0-based), with the thread it was shown in. */
  const ephemeral = (user: FakeSlackUser, count: number) =>
    h.fake.waitFor(
      () => h.fake.state.ephemerals.filter((entry) => entry.user === user.id)[count],
      15_000,
      'ephemeral answer',
    );
  const stopOn = (threadTs: string) =>
    h.botReplies(threadTs).find((message) => h.button(message, 'Stop') !== undefined);

  it('!status, !model, !cancel and !close in a thread act like the slash command, answered privately in the thread', async () => {
    const { user } = await h.linkedUser('U0BANG', 'bang');
    h.llm.enqueue({ text: 'Ready.' });
    const { threadTs } = h.mention(user, 'hello');
    await h.fake.waitFor(() => h.textReplies(threadTs).find((m) => m.text === 'Ready.'), 15_000, 'first answer');
    const calls = h.llm.requests.length;

    h.fake.userMessage(user, CHANNEL, '!status', threadTs);
    const status = await ephemeral(user, 0);
    assert.match(status.text, /Model: fake/);
    assert.equal(status.threadTs, threadTs, 'shown in the thread');
    h.fake.userMessage(user, CHANNEL, '!model other', threadTs);
    assert.equal((await ephemeral(user, 1)).text, 'This thread now uses `other`.');

    h.llm.enqueue({ text: ['Working'], hang: true });
    h.fake.userMessage(user, CHANNEL, 'take long', threadTs);
    await h.fake.waitFor(() => stopOn(threadTs), 15_000, 'Stop button');
    assert.equal(modelOf(h.llm.requests.at(-1)?.body), 'other-model');
    h.fake.userMessage(user, CHANNEL, '!cancel', threadTs);
    assert.equal((await ephemeral(user, 2)).text, 'Cancelling the running turn.');
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => /Cancelled/.test(m.text)),
      15_000,
      'cancelled notice',
    );
    await h.fake.waitFor(() => !stopOn(threadTs), 15_000, 'Stop button gone');

    h.fake.userMessage(user, CHANNEL, '!close', threadTs);
    assert.equal((await ephemeral(user, 3)).text, 'Workstream closed.');
    assert.equal(h.llm.requests.length, calls + 1, 'no !command reached the model');
  });

  it('/sandpiper ask --model starts on that model; an unknown alias is refused with the list', async () => {
    const { user } = await h.linkedUser('U0ASKER', 'asker');
    h.fake.slashCommand(user, CHANNEL, 'ask --model nope what now');
    assert.match(
      (await ephemeral(user, 0)).text,
      /Unknown model "nope"\. Available models: `fake` \(fake-model\), `other` \(other-model\)\./,
    );
    h.llm.enqueue({ text: 'From other.' });
    h.fake.slashCommand(user, CHANNEL, '--model=other what now');
    assert.match((await ephemeral(user, 1)).text, /model `other`/);
    await h.llm.waitFor((llm) => llm.requests.at(-1)?.finished);
    assert.equal(modelOf(h.llm.requests.at(-1)?.body), 'other-model');
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /what now/);
    assert.doesNotMatch(JSON.stringify(h.llm.requests.at(-1)?.body), /--model/);
  });

  it('a mention in a channel with a default model uses it', async () => {
    const { user } = await h.linkedUser('U0DEFAULT', 'def');
    h.llm.enqueue({ text: 'Defaulted.' });
    const { message } = h.fake.userMessage(user, DEFAULTED, `<@${BOT_USER_ID}> hi`);
    await h.fake.waitFor(
      () => h.textReplies(message.ts, DEFAULTED).find((m) => m.text === 'Defaulted.'),
      15_000,
      'answer',
    );
    assert.equal(modelOf(h.llm.requests.at(-1)?.body), 'other-model');
  });

  it('ignores a Stop click whose value names another channel', async () => {
    const { user } = await h.linkedUser('U0FORGER', 'forger');
    h.llm.enqueue({ text: ['Still going'], hang: true });
    const { threadTs } = h.mention(user, 'go');
    const live = await h.fake.waitFor(() => stopOn(threadTs), 15_000, 'Stop button');
    const before = h.fake.state.privateTo(user.id).length;
    h.fake.click(live, 'sp:stop', user, `C0OTHER:${threadTs}`);
    h.fake.click(live, 'sp:stop', user);
    assert.equal(
      await h.fake.waitFor(() => h.fake.state.privateTo(user.id)[before], 15_000, 'stop reply'),
      'Cancelling the running turn.',
    );
    await h.fake.waitFor(() => !stopOn(threadTs), 15_000, 'Stop button gone');
    assert.equal(h.fake.state.privateTo(user.id).length, before + 1, 'the forged click got nothing');
  });

  it('a restart edits the interrupted live message to the kept text and the note, without Stop, and answers once', async () => {
    const { user } = await h.linkedUser('U0RESTART', 'rita');
    h.llm.enqueue({ text: ['Thinking hard'], hang: true });
    const { threadTs } = h.mention(user, 'hang on');
    const live = await h.fake.waitFor(() => stopOn(threadTs), 15_000, 'Stop button');
    h.llm.enqueue({ text: 'Answered after the restart.' });
    await h.crash();
    await h.boot();
    const edited = h.botReplies(threadTs).find((m) => m.ts === live.ts);
    // Slack mrkdwn shows the note's italics with underscores.
    assert.equal(edited?.text, `Thinking hard\n\n_${RESUMING_NOTE.slice(1, -1)}_`);
    assert.deepEqual(edited?.blocks, [], 'the interrupted message keeps no Stop');
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Answered after the restart.'),
      15_000,
      'resumed answer',
    );
    await h.fake.waitFor(() => !stopOn(threadTs), 15_000, 'no Stop once the resumed turn ended');
    assert.equal(
      h.textReplies(threadTs).filter((m) => m.text === 'Answered after the restart.').length,
      1,
      'answered once',
    );
    assert.equal(
      h.botReplies(threadTs).filter((m) => m.text.includes('Interrupted by a restart')).length,
      1,
      'one note, on the live message',
    );
  });
});
