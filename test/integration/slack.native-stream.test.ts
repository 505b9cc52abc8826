/**
 * The Slack native stream on its own, through @slack/web-api's WebClient against the fake Slack: rollover at the
 * message budget (code blocks closed and reopened, multi-byte text measured in bytes), Slack's special tokens kept as
 * text, and the fake's strictness (unknown ts, a stopped stream, text limits) that the end-to-end tests rely on.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { webApi } from '@slack/bolt';
import { SlackNativeStream } from '../../src/channels/slack/slack-native-stream.js';
import { toSlackError } from '../../src/channels/slack/slack-web.js';
import { FakeSlack, TEAM_ID } from '../fakes/fake-slack.js';

const CHANNEL = 'C0001';

describe('slack native stream', () => {
  let fake: FakeSlack;
  let client: InstanceType<typeof webApi.WebClient>;
  const signal = new AbortController().signal;
  const call = async (method: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    try {
      return (await client.apiCall(method, args)) as unknown as Record<string, unknown>;
    } catch (error) {
      throw toSlackError(method, error);
    }
  };
  const thread = (): string => fake.state.addMessage({ channel: CHANNEL, user: 'U0ASK', text: 'question' }).ts;
  const stream = (threadTs: string, messageBytes: number, now?: () => number): SlackNativeStream =>
    new SlackNativeStream(
      { channel: CHANNEL, threadTs, recipient: { userId: 'U0ASK', teamId: TEAM_ID } },
      call,
      { messageBytes },
      undefined,
      now,
    );

  before(async () => {
    fake = await FakeSlack.start();
    fake.streams.rules.enabled = true;
    const quiet = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
      setLevel: () => undefined,
      getLevel: () => webApi.LogLevel.ERROR,
      setName: () => undefined,
    };
    client = new webApi.WebClient(fake.botToken, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      logger: quiet,
    });
  });
  after(async () => {
    await fake.close();
  });

  it('rolls over at the byte budget, counting multi-byte characters as Slack does, between words', async () => {
    const threadTs = thread();
    const s = stream(threadTs, 200);
    const words = Array.from({ length: 60 }, (_, i) => `wörd${i}→`).join(' ');
    for (const part of words.match(/[\s\S]{1,37}/g) ?? []) await s.append(part, signal);
    await s.finish(signal);
    const messages = fake.state.thread(CHANNEL, threadTs);
    assert.ok(messages.length >= 4);
    assert.equal(s.messageCount, messages.length);
    assert.deepEqual(
      s.messageIds,
      messages.map((m) => m.ts),
      'every message it started, in order, for the gateway to record',
    );
    assert.equal(messages.map((m) => m.text).join(''), words);
    assert.ok(messages.every((m) => Buffer.byteLength(m.text) <= 200 && !fake.streams.isOpen(m)));
    assert.ok(
      messages.slice(0, -1).every((m) => m.text.endsWith(' ')),
      'messages end between words',
    );
    assert.deepEqual(fake.streams.refusals, []);
  });

  it('closes a code block at a rollover and reopens it in the next message', async () => {
    const threadTs = thread();
    const s = stream(threadTs, 120);
    const code = ['```', ...Array.from({ length: 12 }, (_, i) => `let v${i} = ${i};`), '```', 'after'].join('\n');
    await s.append(code, signal);
    await s.finish(signal);
    const messages = fake.state.thread(CHANNEL, threadTs);
    assert.ok(messages.length >= 2);
    for (const message of messages)
      assert.equal((message.text.split('```').length - 1) % 2, 0, `balanced fences in ${JSON.stringify(message.text)}`);
    assert.match(messages.at(-1)?.text ?? '', /after$/);
  });

  it('rolls over once a message is older than the stream lifetime', async () => {
    let clock = 0;
    const threadTs = thread();
    const s = stream(threadTs, 9_000, () => clock);
    await s.append('first part. ', signal);
    clock = 5 * 60_000;
    await s.append('second part.', signal);
    await s.finish(signal);
    assert.deepEqual(
      fake.state.thread(CHANNEL, threadTs).map((m) => m.text),
      ['first part. ', 'second part.'],
    );
  });

  it('keeps broadcast and user tokens as text, also when split across appends', async () => {
    const threadTs = thread();
    const s = stream(threadTs, 9_000);
    await s.append('ping <!channel> and <', signal);
    await s.append('@U0BOSS> now', signal);
    await s.finish(signal);
    const [message] = fake.state.thread(CHANNEL, threadTs);
    assert.doesNotMatch(message?.text ?? '', /<[!@]/);
    assert.equal(message?.text.replace(/\u200B/g, ''), 'ping <!channel> and <@U0BOSS> now');
  });

  it('the fake refuses what Slack refuses', async () => {
    const threadTs = thread();
    const refused = async (method: string, args: Record<string, unknown>): Promise<string> =>
      call(method, args).then(
        () => 'ok',
        (error: Error) => error.message,
      );
    assert.match(
      await refused('chat.appendStream', { channel: CHANNEL, ts: '1.000001', markdown_text: 'x' }),
      /message_not_found/,
    );
    assert.match(
      await refused('chat.startStream', { channel: CHANNEL, thread_ts: threadTs, markdown_text: 'x' }),
      /invalid_arguments/,
      'a recipient outside DMs',
    );
    const who = { recipient_user_id: 'U0ASK', recipient_team_id: TEAM_ID };
    assert.match(
      await refused('chat.startStream', { channel: CHANNEL, markdown_text: 'x', ...who }),
      /invalid_arguments/,
      'thread_ts required',
    );
    assert.match(
      await refused('chat.startStream', {
        channel: CHANNEL,
        thread_ts: threadTs,
        markdown_text: 'x'.repeat(12_001),
        ...who,
      }),
      /msg_too_long/,
    );
    const started = await call('chat.startStream', {
      channel: CHANNEL,
      thread_ts: threadTs,
      markdown_text: 'x'.repeat(10_000),
      ...who,
    });
    assert.match(
      await refused('chat.appendStream', { channel: CHANNEL, ts: started.ts, markdown_text: 'y'.repeat(700) }),
      /msg_too_long/,
      'the message is full',
    );
    assert.equal(await refused('chat.stopStream', { channel: CHANNEL, ts: started.ts }), 'ok');
    assert.match(
      await refused('chat.appendStream', { channel: CHANNEL, ts: started.ts, markdown_text: 'z' }),
      /message_not_in_streaming_state/,
    );
    fake.streams.rules.enabled = false;
    assert.match(
      await refused('chat.startStream', { channel: CHANNEL, thread_ts: threadTs, markdown_text: 'x', ...who }),
      /unknown_method/,
    );
    fake.streams.rules.enabled = true;
  });
});
