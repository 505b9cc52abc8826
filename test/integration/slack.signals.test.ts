/** The Slack adapter leaves nothing attached to the gateway's long-lived signal per call (posts, edits, private answers). */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { ChannelAdapter } from '../../src/channels/channel-adapter.js';
import { createSlackAdapter } from '../../src/channels/slack/index.js';
import { postToResponseUrl } from '../../src/channels/slack/slack-web.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { FakeSlack } from '../fakes/fake-slack.js';

const CHANNEL = 'C0001';

/** How many signals Node keeps linked to `signal` for `AbortSignal.any` (internal; undefined when not exposed). */
function dependants(signal: AbortSignal): number | undefined {
  const key = Object.getOwnPropertySymbols(signal).find((symbol) => String(symbol) === 'Symbol(kDependantSignals)');
  const set: unknown = key === undefined ? undefined : (signal as unknown as Record<symbol, unknown>)[key];
  return set instanceof Set ? set.size : undefined;
}

describe('slack adapter and long-lived signals', () => {
  let slack: FakeSlack;
  let adapter: ChannelAdapter;
  const gateway = new AbortController();

  before(async () => {
    slack = await FakeSlack.start();
    adapter = createSlackAdapter(
      {
        bot_token: slack.botToken,
        app_token: slack.appToken,
        api_url: slack.apiUrl,
        channel_ids: [],
        slash_command: '/sandpiper',
      },
      createSilentLogger(),
      { webRetries: 0, socketRetries: 0 },
    );
    await adapter.start(async () => undefined, gateway.signal);
  });

  after(async () => {
    await adapter.stop();
    gateway.abort();
    await slack.close();
  });

  it('does not add an abort listener per post or edit', async () => {
    const baseline = getEventListeners(gateway.signal, 'abort').length;
    const linked = dependants(gateway.signal);
    for (let i = 0; i < 20; i += 1) {
      const ts = await adapter.post(CHANNEL, { kind: 'text', text: `message ${i}` }, gateway.signal);
      await adapter.edit(CHANNEL, ts, { kind: 'text', text: `message ${i}, edited` }, gateway.signal);
    }
    assert.equal(
      slack.state.topLevel(CHANNEL).filter((m) => m.text.startsWith('message ')).length,
      20,
      'the posts arrived',
    );
    assert.equal(getEventListeners(gateway.signal, 'abort').length, baseline, 'no listener left behind');
    assert.equal(dependants(gateway.signal), linked, 'no linked signal left behind');
  });

  it('does not add an abort listener per rate-limited retry', async () => {
    const baseline = getEventListeners(gateway.signal, 'abort').length;
    slack.rateLimit('chat.postMessage', 2, 0.05);
    await adapter.post(CHANNEL, { kind: 'text', text: 'after a rate limit' }, gateway.signal);
    assert.ok(slack.state.topLevel(CHANNEL).some((m) => m.text === 'after a rate limit'));
    assert.equal(getEventListeners(gateway.signal, 'abort').length, baseline);
  });

  it('does not leave anything attached per private answer through a response_url', async () => {
    const longLived = new AbortController();
    const user = slack.user('U0SIG', 'sig');
    for (let i = 0; i < 20; i += 1) {
      const url = slack.state.newResponseUrl(user.id);
      assert.equal(await postToResponseUrl(url, `answer ${i}`, createSilentLogger(), longLived.signal), true);
    }
    assert.equal(slack.state.privateTo(user.id).length, 20);
    assert.equal(getEventListeners(longLived.signal, 'abort').length, 0);
    assert.equal(dependants(longLived.signal) ?? 0, 0);
  });
});
