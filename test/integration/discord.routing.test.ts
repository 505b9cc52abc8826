/** End to end: who may write in a thread, closed and evicted workstreams, and the channel allow-list. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';

describe('discord routing (owner-only threads)', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start({
      flags: { 'agent.max_active_workstreams': 1, 'agent.idle_evict_minutes': 0.0001 },
    });
  });
  after(async () => {
    await h.close();
  });

  it('ignores another linked user in the owner’s thread', async () => {
    const { user: alice } = await h.linkedUser('400000000000000051', 'alice');
    const { user: bob } = await h.linkedUser('400000000000000052', 'bob');
    h.llm.enqueue({ text: 'Hi Alice.' }, { text: 'Still here, Alice.' });
    const { threadId } = await h.mention(alice, 'hello');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Hi Alice.'), 20_000, 'first answer');
    h.fake.state.injectMessage(threadId, bob, 'let me drive');
    h.fake.state.injectMessage(threadId, alice, 'are you there?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Still here, Alice.'),
      20_000,
      'second answer',
    );
    assert.doesNotMatch(JSON.stringify(h.llm.requests.at(-1)?.body), /let me drive/);
  });

  it('restores an evicted workstream with its history on the next message', async () => {
    const { user } = await h.linkedUser('400000000000000053', 'carla');
    h.llm.enqueue({ text: 'Noted: the code is 4711.' }, { text: 'Other thread.' });
    const first = await h.mention(user, 'remember code 4711');
    await h.fake.waitFor(
      () => h.textMessages(first.threadId).find((m) => m.content === 'Noted: the code is 4711.'),
      20_000,
      'first',
    );
    const second = await h.mention(user, 'another topic');
    await h.fake.waitFor(
      () => h.textMessages(second.threadId).find((m) => m.content === 'Other thread.'),
      20_000,
      'second',
    );
    await h.runtime.manager.evictIdle();
    assert.ok(h.runtime.manager.stats().active <= 1, 'only one workstream stays in memory');
    h.llm.enqueue({ text: 'The code was 4711.' });
    h.fake.state.injectMessage(first.threadId, user, 'what was the code?');
    await h.fake.waitFor(
      () => h.textMessages(first.threadId).find((m) => m.content === 'The code was 4711.'),
      20_000,
      'restored answer',
    );
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /remember code 4711/);
  });

  it('tells the user a closed thread is closed', async () => {
    const { user } = await h.linkedUser('400000000000000054', 'dina');
    h.llm.enqueue({ text: 'Hello Dina.' });
    const { threadId } = await h.mention(user, 'hi');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Hello Dina.'), 20_000, 'answer');
    const close = h.fake.state.slashCommand('close', threadId, user);
    await h.fake.waitFor(() => h.fake.state.interactions.get(close.id)?.reply, 15_000, 'close reply');
    await h.fake.waitFor(() => h.fake.state.channels.get(threadId)?.archived, 15_000, 'archived');
    h.fake.state.injectMessage(threadId, user, 'one more thing');
    await h.fake.waitFor(
      () => h.textMessages(threadId).filter((m) => m.content === '*Workstream closed.*').length === 2,
      15_000,
      'closed notice',
    );
  });
});

const ALLOWED_CHANNEL_ID = '300000000000000009';

describe('discord routing (linked participants, allow-list)', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start({
      channelIds: [CHANNEL_ID, ALLOWED_CHANNEL_ID],
      flags: { 'discord.thread_participants': 'linked' },
    });
  });
  after(async () => {
    await h.close();
  });

  it('lets any linked user write in a thread when thread_participants is "linked"', async () => {
    const { user: alice } = await h.linkedUser('400000000000000061', 'alice');
    const { user: bob } = await h.linkedUser('400000000000000062', 'bob');
    h.llm.enqueue({ text: 'Hi.' }, { text: 'Hi Bob.' });
    const { threadId } = await h.mention(alice, 'hello');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Hi.'), 20_000, 'first answer');
    h.fake.state.injectMessage(threadId, bob, 'I am Bob');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Hi Bob.'), 20_000, 'answer to bob');
  });

  it('ignores mentions outside the allowed channels', async () => {
    await h.crash();
    const flags = { 'discord.thread_participants': 'linked', 'discord.channel_ids': [ALLOWED_CHANNEL_ID] };
    Object.assign((h as unknown as { options: { flags: Record<string, unknown> } }).options, { flags });
    await h.boot();
    const { user } = await h.linkedUser('400000000000000063', 'cara');
    const requestsBefore = h.llm.requests.length;
    h.fake.state.injectMessage(CHANNEL_ID, user, 'anyone?', true);
    // The same author then mentions the bot in the allowed channel: once that is answered, the first was handled too.
    h.llm.enqueue({ text: 'Here, in the allowed channel.' });
    const inside = h.fake.state.injectMessage(ALLOWED_CHANNEL_ID, user, 'anyone here?', true);
    await h.fake.waitFor(
      () => h.textMessages(inside.id).find((m) => m.content === 'Here, in the allowed channel.'),
      20_000,
      'answer in the allowed channel',
    );
    assert.equal(
      h.fake.state.threadsOf(CHANNEL_ID).some((t) => t.name === 'anyone?'),
      false,
    );
    assert.equal(h.llm.requests.length - requestsBefore, 1, 'only the allowed mention reached the model');
  });
});
