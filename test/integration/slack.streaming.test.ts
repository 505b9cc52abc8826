/**
 * Slack native streaming end to end (bolt in Socket Mode, the fake Slack): a 12,000-character answer streamed across
 * messages (rollover), a stream Slack ends by itself, the chat.update fallback on a streaming error, approval cards and
 * tool lines staying Block Kit, and a workspace without streaming.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { TEAM_ID, type FakeSlackMessage } from '../fakes/fake-slack.js';

/** `lines` numbered lines of 100 characters each (newline included). */
function longAnswer(lines: number, tag: string): string {
  return Array.from(
    { length: lines },
    (_, i) => `${tag} line ${String(i + 1).padStart(3, '0')}: `.padEnd(99, 'abcdefghij'.charAt(i % 10)) + '\n',
  ).join('');
}
const squash = (text: string): string => text.replace(/\s+/g, '');
const chunks = (text: string, size: number): string[] => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

describe('slack native streaming', () => {
  let h: SlackHarness;
  const streamed = (threadTs: string): FakeSlackMessage[] =>
    h.botReplies(threadTs).filter((m) => h.fake.streams.isStreamed(m));
  const textCallsIn = (method: string, threadTs: string): number =>
    h.fake
      .callsOf(method)
      .filter(
        (c) =>
          c.body.thread_ts === threadTs || h.fake.state.find(CHANNEL, String(c.body.ts ?? ''))?.threadTs === threadTs,
      ).length;

  before(async () => {
    h = await SlackHarness.start();
    h.fake.streams.rules.enabled = true;
  });
  after(async () => {
    await h.close();
  });

  it('streams a 12,000-character answer natively, rolled over to a second message, whole and in order', async () => {
    const { user } = await h.linkedUser('U0ALICE', 'alice');
    const answer = longAnswer(120, 'alpha');
    assert.equal(answer.length, 12_000);
    h.llm.enqueue({ text: chunks(answer, 250), delayMs: 15 });
    const { threadTs } = h.mention(user, 'write a long answer');
    const messages = await h.fake.waitFor(
      () => {
        const shown = streamed(threadTs);
        return (
          shown.length >= 2 &&
          shown.every((m) => !h.fake.streams.isOpen(m)) &&
          shown.map((m) => m.text).join('') === answer &&
          shown
        );
      },
      30_000,
      'the whole answer over native streams',
    );
    assert.deepEqual(h.fake.streams.refusals, [], 'rolled over before Slack’s limits, never refused');
    assert.ok(messages.every((m) => m.history.length >= 1));
    assert.ok(h.fake.callsOf('chat.appendStream').length >= 1, 'text was appended to a running stream');
    const starts = h.fake.callsOf('chat.startStream').filter((c) => c.body.thread_ts === threadTs);
    assert.equal(starts.length, messages.length);
    assert.ok(
      starts.every((c) => c.body.recipient_user_id === user.id && c.body.recipient_team_id === TEAM_ID),
      'streams name their recipient',
    );
    assert.equal(textCallsIn('chat.update', threadTs), 0, 'no message edits for streamed text');
    assert.equal(h.textReplies(threadTs).length, messages.length, 'the thread holds only the streamed messages');
  });

  it('rolls over to a new message when Slack ends a stream by itself', async () => {
    const { user } = await h.linkedUser('U0BEA', 'bea');
    const answer = longAnswer(20, 'beta');
    h.llm.enqueue({ text: chunks(answer, 100), delayMs: 40 });
    const { threadTs } = h.mention(user, 'answer slowly');
    const first = await h.fake.waitFor(() => streamed(threadTs)[0], 20_000, 'a stream');
    h.fake.streams.expire(first);
    const messages = await h.fake.waitFor(
      () => {
        const shown = streamed(threadTs);
        return shown.every((m) => !h.fake.streams.isOpen(m)) && shown.map((m) => m.text).join('') === answer && shown;
      },
      20_000,
      'the whole answer',
    );
    assert.ok(messages.length >= 2, 'the rest went to a new streamed message');
  });

  it('falls back to chat.update on a streaming error and still shows the whole answer in order', async () => {
    const { user } = await h.linkedUser('U0CAL', 'cal');
    const answer = longAnswer(60, 'gamma');
    h.fake.failNext('chat.appendStream', 'internal_error');
    h.llm.enqueue({ text: chunks(answer, 200), delayMs: 15 });
    const { threadTs } = h.mention(user, 'answer with a failing stream');
    await h.fake.waitFor(
      () =>
        squash(
          h
            .textReplies(threadTs)
            .map((m) => m.text)
            .join(''),
        ) === squash(answer),
      30_000,
      'the whole answer',
    );
    const [head, ...rest] = h.textReplies(threadTs);
    assert.ok(
      head && h.fake.streams.isStreamed(head) && !h.fake.streams.isOpen(head),
      'the stream shows the start and was stopped',
    );
    assert.ok(
      rest.length >= 1 && rest.every((m) => !h.fake.streams.isStreamed(m)),
      'the rest is ordinary posted messages',
    );
    assert.ok(textCallsIn('chat.update', threadTs) >= 1, 'the rest streamed by chat.update');
    const order = h.textReplies(threadTs).map((m) => m.ts);
    assert.deepEqual(order, [...order].sort(), 'messages in thread order');
  });

  it('keeps approval cards and tool lines as Block Kit messages between streamed text', async () => {
    const { user } = await h.linkedUser('U0DEE', 'dee');
    h.llm.enqueue(
      {
        text: ['Let me check ', 'the date first.'],
        toolCalls: [{ id: 'call_s1', name: 'bash', arguments: JSON.stringify({ command: 'echo streamed-run' }) }],
      },
      { text: ['The command ', 'printed streamed-run.'] },
    );
    const { threadTs } = h.mention(user, 'run something');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    assert.ok(card.blocks.length > 0 && !h.fake.streams.isStreamed(card));
    const approve = h.button(card, 'Approve');
    assert.ok(approve);
    h.fake.click(card, approve, user);
    await h.fake.waitFor(
      () => streamed(threadTs).some((m) => m.text === 'The command printed streamed-run.' && !h.fake.streams.isOpen(m)),
      20_000,
      'final answer',
    );
    const texts = streamed(threadTs).map((m) => m.text);
    assert.deepEqual(texts, ['Let me check the date first.', 'The command printed streamed-run.']);
    const tools = h.botReplies(threadTs).filter((m) => /bash/.test(JSON.stringify(m.blocks)) && m !== card);
    assert.ok(
      tools.length >= 1 && tools.every((m) => !h.fake.streams.isStreamed(m)),
      'the tool line is a Block Kit message',
    );
  });
});

describe('slack without native streaming', () => {
  let h: SlackHarness;
  before(async () => {
    h = await SlackHarness.start();
  });
  after(async () => {
    await h.close();
  });

  it('learns from the first refused stream that the workspace cannot stream and answers by message edits from then on', async () => {
    const { user } = await h.linkedUser('U0EVE', 'eve');
    h.llm.enqueue({ text: ['First ', 'answer.'], delayMs: 30 }, { text: ['Second ', 'answer.'], delayMs: 30 });
    const { threadTs } = h.mention(user, 'hello');
    await h.fake.waitFor(() => h.textReplies(threadTs).find((m) => m.text === 'First answer.'), 20_000, 'first answer');
    assert.equal(h.fake.callsOf('chat.startStream').length, 1, 'one stream was tried');
    h.fake.userMessage(user, CHANNEL, 'again', threadTs);
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Second answer.'),
      20_000,
      'second answer',
    );
    assert.equal(h.fake.callsOf('chat.startStream').length, 1, 'never tried again in this workspace');
    assert.equal(h.textReplies(threadTs).length, 2);
  });

  it('answers by message edits when slack.native_streaming is false, even where the workspace streams', async () => {
    const flagged = await SlackHarness.start({ flags: { 'slack.native_streaming': false } });
    flagged.fake.streams.rules.enabled = true;
    try {
      const { user } = await flagged.linkedUser('U0FAY', 'fay');
      flagged.llm.enqueue({ text: ['Edited ', 'answer.'], delayMs: 30 });
      const { threadTs } = flagged.mention(user, 'hello');
      await flagged.fake.waitFor(
        () => flagged.textReplies(threadTs).find((m) => m.text === 'Edited answer.'),
        20_000,
        'answer',
      );
      assert.equal(flagged.fake.callsOf('chat.startStream').length, 0);
    } finally {
      await flagged.close();
    }
  });
});
