/** The Discord adapter against the fake Discord: long-lived caller signals do not collect listeners per request. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createDiscordAdapter } from '../../src/channels/discord/index.js';
import type { ChannelAdapter } from '../../src/channels/channel-adapter.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { CHANNEL_ID } from '../fakes/fake-discord-harness.js';

describe('discord adapter requests', () => {
  let fake: FakeDiscord;
  let adapter: ChannelAdapter;
  const controller = new AbortController();
  before(async () => {
    fake = await FakeDiscord.start();
    adapter = createDiscordAdapter({ token: fake.token, channel_ids: [], api_url: fake.apiUrl }, createSilentLogger());
    await adapter.start(async () => undefined, controller.signal);
  });
  after(async () => {
    await adapter.stop();
    controller.abort();
    await fake.close();
  });

  it('leaves no abort listener behind on the caller’s signal after posts, edits and typing', async () => {
    const gatewaySignal = new AbortController().signal;
    const before = getEventListeners(gatewaySignal, 'abort').length;
    for (let i = 0; i < 20; i += 1) {
      const id = await adapter.post(CHANNEL_ID, { kind: 'text', text: `message ${i}` }, gatewaySignal);
      await adapter.edit(CHANNEL_ID, id, { kind: 'text', text: `message ${i}, edited` }, gatewaySignal);
      await adapter.setTyping(CHANNEL_ID, gatewaySignal);
    }
    assert.equal(fake.state.messagesIn(CHANNEL_ID).filter((m) => m.content.endsWith('edited')).length, 20);
    assert.equal(getEventListeners(gatewaySignal, 'abort').length, before);
  });

  it('still aborts a request when the caller’s signal aborts', async () => {
    const caller = new AbortController();
    caller.abort();
    await assert.rejects(adapter.post(CHANNEL_ID, { kind: 'text', text: 'never' }, caller.signal));
    assert.equal(
      fake.state.messagesIn(CHANNEL_ID).some((m) => m.content === 'never'),
      false,
    );
  });
});
