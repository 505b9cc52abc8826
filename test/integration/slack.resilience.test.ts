/** End to end: rate-limited updates lose no text, a Socket Mode refresh reconnects, and a bad token fails clearly. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSlackAdapter } from '../../src/channels/slack/index.js';
import { ChannelError } from '../../src/shared/errors.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';

describe('slack resilience', () => {
  let h: SlackHarness;
  before(async () => {
    h = await SlackHarness.start({ editIntervalMs: 50 });
  });
  after(async () => {
    await h.close();
  });

  it('keeps every word when chat.update gets 429 responses', async () => {
    const { user } = await h.linkedUser('U0KIM', 'kim');
    const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
    h.llm.enqueue({ text: words, delayMs: 15 });
    h.fake.rateLimit('chat.update', 2, 1);
    const { threadTs } = h.mention(user, 'count words');
    const expected = words.join('').trim();
    const answer = await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text.trim() === expected),
      30_000,
      'complete answer',
    );
    assert.ok(answer);
    assert.equal(
      h.fake.callsOf('chat.update').filter((c) => c.status === 429).length,
      2,
      'the fake answered 429 twice',
    );
    assert.equal(h.textReplies(threadTs).length, 1);
  });

  it('reconnects when Slack asks for a refresh and keeps delivering events', async () => {
    const { user } = await h.linkedUser('U0LOU', 'lou');
    h.llm.enqueue({ text: 'Before the refresh.' });
    const { threadTs } = h.mention(user, 'hello');
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Before the refresh.'),
      20_000,
      'first answer',
    );
    const connections = h.fake.connections;
    h.fake.requestReconnect();
    await h.fake.waitFor(
      () => h.fake.connections > connections && h.gateway.status().adapters.slack === 'connected',
      20_000,
      'reconnect',
    );
    h.llm.enqueue({ text: 'After the refresh.' });
    // Wait until the new connection is the live one before sending on it.
    await h.fake.waitFor(() => h.fake.callsOf('apps.connections.open').length > connections, 20_000, 'new socket url');
    h.fake.userMessage(user, CHANNEL, 'still there?', threadTs);
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'After the refresh.'),
      20_000,
      'answer after reconnect',
    );
  });

  it('refuses to start with a bad app token, with a ChannelError and state failed', async () => {
    const adapter = createSlackAdapter(
      {
        bot_token: h.fake.botToken,
        app_token: 'xapp-wrong',
        channel_ids: [],
        slash_command: '/sandpiper',
        api_url: h.fake.apiUrl,
      },
      createSilentLogger(),
      { webRetries: 0, socketRetries: 0 },
    );
    await assert.rejects(
      adapter.start(async () => undefined, new AbortController().signal),
      (error: unknown) => error instanceof ChannelError,
    );
    assert.equal(adapter.state(), 'failed');
    await adapter.stop();
  });
});
