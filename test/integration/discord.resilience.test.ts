/** End to end: rate-limited edits lose no text, and a dropped gateway connection resumes and keeps routing. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { RecordedRequest } from '../fakes/fake-discord.js';
import { COMMANDS } from '../../src/channels/discord/discord-commands.js';

/** A post or edit in `threadId` that shows `text` (awaited with `fake.next`, set up before the message is sent). */
const shows =
  (threadId: string, text: string) =>
  (request: RecordedRequest): boolean =>
    request.path.startsWith(`/channels/${threadId}/messages`) && JSON.stringify(request.body ?? {}).includes(text);

describe('discord resilience', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start({ editIntervalMs: 50 });
  });
  after(async () => {
    await h.close();
  });

  it('keeps every word when message edits get 429 responses', async () => {
    const { user } = await h.linkedUser('400000000000000041', 'kim');
    const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
    h.llm.enqueue({ text: words, delayMs: 15 });
    h.fake.rateLimit('PATCH', /^\/channels\/\d+\/messages\/\d+$/, 3, 0.3);
    const { threadId } = await h.mention(user, 'count words');
    const expected = words.join('').trim();
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content.trim() === expected),
      30_000,
      'complete answer',
    );
    assert.ok(h.fake.rateLimited >= 1, 'the fake answered 429 at least once');
    assert.equal(h.textMessages(threadId).length, 1);
  });

  it('resumes after a gateway connection drop and still answers in the thread', async () => {
    const { user } = await h.linkedUser('400000000000000042', 'lou');
    h.llm.enqueue({ text: 'Before the drop.' });
    const { threadId } = await h.mention(user, 'hello');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Before the drop.'),
      20_000,
      'first answer',
    );
    const identifies = h.fake.gateway.identifies;
    h.fake.gateway.drop(4000);
    await h.fake.waitFor(() => h.fake.gateway.resumes >= 1 && h.fake.gateway.connected === 1, 20_000, 'resume');
    assert.equal(h.fake.gateway.identifies, identifies, 'the session was resumed, not re-identified');
    h.llm.enqueue({ text: 'After the drop.' });
    const answered = h.fake.next(shows(threadId, 'After the drop.'), 20_000);
    h.fake.state.injectMessage(threadId, user, 'still there?');
    await answered;
    assert.equal(h.gateway.status().adapters.discord, 'connected');
  });

  it('registers slash commands after a 429 without holding up the connection', async () => {
    await h.crash();
    h.fake.state.commands = [];
    const before = h.fake.rateLimited;
    h.fake.rateLimit('PUT', /\/commands$/, 1, 0.5);
    await h.boot();
    assert.equal(h.gateway.status().adapters.discord, 'connected');
    await h.fake.waitFor(
      () => h.fake.state.commands.length === COMMANDS.length,
      20_000,
      'commands registered after the 429',
    );
    assert.equal(h.fake.rateLimited, before + 1);
  });
});
