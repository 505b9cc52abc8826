/**
 * Discord direct messages end to end (discord.js against the fake Discord): what the contract does not cover. With
 * `discord.dm = false` a DM gets the old hint and a reply to an untracked message the "no longer active" notice; with
 * DMs on, an unlinked writer gets the link hint, a Discord reply to one of the DM conversation's answers continues
 * that conversation, and the owner's reply to a notification posted in a channel is answered in the channel.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';

describe('discord direct messages with discord.dm = false', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  before(async () => {
    h = await DiscordHarness.start({ flags: { 'discord.dm': false } });
    alice = (await h.linkedUser('400000000000000071', 'alice')).user;
  });
  after(async () => {
    await h?.close();
  });

  it('answers a DM with the hint and a reply to an untracked message with the inactive notice, without the model', async () => {
    const dm = h.fake.state.openDm(alice.id).id;
    h.fake.state.injectMessage(dm, alice, 'hello?');
    const hint = await h.fake.waitFor(() => h.textMessages(dm)[0], 15_000, 'hint');
    assert.equal(
      hint.content,
      "*Direct messages aren't supported. Use `/ask` in a server channel or @mention me to start a conversation.*",
    );
    h.fake.state.injectMessage(dm, alice, 'answer me', false, hint.id);
    const notice = await h.fake.waitFor(() => h.textMessages(dm)[1], 15_000, 'notice');
    assert.equal(notice.content, '*This notification is no longer active.*');
    assert.equal(h.llm.requests.length, 0);
  });
});

describe('discord direct messages', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  before(async () => {
    h = await DiscordHarness.start();
    alice = (await h.linkedUser('400000000000000081', 'alice')).user;
  });
  after(async () => {
    await h?.close();
  });

  it('gives an unlinked writer the link hint in the DM', async () => {
    const stranger = h.fake.user('400000000000000089', 'stranger');
    const dm = h.fake.state.openDm(stranger.id).id;
    h.fake.state.injectMessage(dm, stranger, 'hi');
    const hint = await h.fake.waitFor(() => h.textMessages(dm)[0], 15_000, 'link hint');
    assert.match(hint.content, /link your Discord account first/);
  });

  it('continues the DM conversation when a DM replies to one of its answers', async () => {
    const dm = h.fake.state.openDm(alice.id).id;
    h.llm.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    h.fake.state.injectMessage(dm, alice, 'the secret is kestrel');
    const answer = await h.fake.waitFor(
      () => h.textMessages(dm).find((m) => m.content === 'First answer.'),
      15_000,
      'first answer',
    );
    h.fake.state.injectMessage(dm, alice, 'what did I say?', false, answer.id);
    await h.fake.waitFor(() => h.textMessages(dm).find((m) => m.content === 'Second answer.'), 15_000, 'second answer');
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /kestrel/);
    assert.ok(!h.textMessages(dm).some((m) => /no longer active/.test(m.content)));
  });

  it('answers the owner’s reply to a notification posted in a channel in that channel', async () => {
    h.llm.enqueue({ text: 'Watching.' });
    const { threadId } = await h.mention(alice, 'watch the release');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Watching.'),
      15_000,
      'thread answer',
    );
    const [posted] = await h.notify(
      { channel_type: 'discord', channel_id: CHANNEL_ID },
      'Release is out.',
      await h.workstreamOf(threadId),
    );
    h.llm.enqueue({ text: 'Good news, then.' });
    h.fake.state.injectMessage(CHANNEL_ID, alice, 'great, anything else?', false, posted);
    await h.fake.waitFor(
      () => h.textMessages(CHANNEL_ID).find((m) => m.content === 'Good news, then.'),
      15_000,
      'answer in the channel',
    );
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /watch the release/);
  });
});
