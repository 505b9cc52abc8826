/**
 * End to end over the real discord.js client: standing approval grants (ADR 0046). A grant scoped to a user applies
 * in their other conversations, only to the arguments its glob names, never to someone else; `/grants` lists and
 * revokes it; after a revoke or its expiry the owner is asked again.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addGrant } from '../../src/gateway/admin/admin-grants.js';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

describe('discord approval grants', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  let mallory: FakeUser;
  let aliceId: string;
  before(async () => {
    h = await DiscordHarness.start();
    const linked = await h.linkedUser('400000000000000021', 'alice');
    alice = linked.user;
    aliceId = linked.userId;
    mallory = (await h.linkedUser('400000000000000022', 'mallory')).user;
  });
  after(async () => {
    await h.close();
  });

  const replyOf = (id: string) =>
    h.fake.waitFor(() => h.fake.state.interactions.get(id)?.reply, 15_000, 'interaction reply');
  const answer = (threadId: string, text: string) =>
    h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === text), 20_000, text);

  /** A conversation whose one bash call runs without a card (a grant covers it); returns its thread. */
  async function runsWithoutCard(user: FakeUser, command: string, done: string): Promise<string> {
    h.llm.enqueue(bash(`call_${done}`, command), { text: done });
    const { threadId } = await h.mention(user, `please run ${command}`);
    await answer(threadId, done);
    assert.equal(h.cards(threadId).length, 0, `no card for ${command}`);
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), new RegExp(command.replace(/\W/g, '.')));
    return threadId;
  }

  /** A conversation whose bash call waits for a card; the card is rejected so the turn ends. */
  async function asksFirst(user: FakeUser, command: string, done: string): Promise<string> {
    h.llm.enqueue(bash(`call_${done}`, command), { text: done });
    const { threadId } = await h.mention(user, `please run ${command}`);
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, `card for ${command}`);
    const click = h.fake.state.clickButton(card.id, h.button(card, 'Reject') ?? '', user);
    const modal = await h.fake.waitFor(() => h.fake.state.interactions.get(click.id)?.modal, 15_000, 'reject modal');
    h.fake.state.submitModal(String(modal.custom_id), threadId, user, { feedback: 'no' });
    await answer(threadId, done);
    return threadId;
  }

  it('a user grant applies in the user’s other conversations, to matching arguments only, and lists and revokes from chat', async () => {
    const grant = await addGrant(h.db.stores, { scope: 'user', target: 'alice', tool: 'bash', args: 'echo *' }, 'cli');
    await runsWithoutCard(alice, 'echo first-conversation', 'first done');
    const second = await runsWithoutCard(alice, 'echo second-conversation', 'second done');
    await asksFirst(alice, 'echo chained; rm -rf ~', 'chained asked');
    await asksFirst(alice, 'ls /', 'ls asked');
    await asksFirst(mallory, 'echo not-yours', 'mallory asked');

    const list = h.fake.state.slashCommand('grants', second, alice);
    const listed = await replyOf(list.id);
    assert.match(listed, new RegExp(`${grant.grant_id}.*bash with arguments \`echo \\*\`: you everywhere`));
    const stranger = h.fake.state.slashCommand('grants', second, mallory, { revoke: grant.grant_id });
    assert.match(await replyOf(stranger.id), /No grant/);
    const revoke = h.fake.state.slashCommand('grants', second, alice, { revoke: grant.grant_id });
    assert.match(await replyOf(revoke.id), /Revoked grant/);
    assert.equal(h.fake.state.interactions.get(revoke.id)?.ephemeral, true);

    await asksFirst(alice, 'echo after-revoke', 'revoked asked');
  });

  it('"Always" makes a conversation grant listed in the thread; a grant stops at its expiry', async () => {
    h.llm.enqueue(bash('call_always', 'echo always'), { text: 'always done' });
    const { threadId } = await h.mention(alice, 'run echo always');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'card');
    h.fake.state.clickButton(card.id, h.button(card, 'Always') ?? '', alice);
    await answer(threadId, 'always done');
    const list = h.fake.state.slashCommand('grants', threadId, alice);
    assert.match(await replyOf(list.id), /bash: this conversation/);

    const expiring = await addGrant(
      h.db.stores,
      { scope: 'user', target: aliceId, tool: 'bash', expires: '1h' },
      'cli',
    );
    await runsWithoutCard(alice, 'echo before-expiry', 'before expiry');
    await h.db
      .knex('approval_grants')
      .where({ grant_id: expiring.grant_id })
      .update({ expires: '2000-01-01T00:00:00' });
    await asksFirst(alice, 'echo after-expiry', 'expired asked');
  });

  it('/forget deletes the person’s own memories, one by name or all, and nobody else’s', async () => {
    const mem = (name: string, scopeId: string) =>
      h.db.stores.memories.create({ name, description: '', type: 'user', scope: 'user', scopeId, content: name });
    const malloryId = (await h.db.stores.users.getUserByUsername('mallory'))?.userId ?? '';
    await mem('tea', aliceId);
    await mem('editor', aliceId);
    await mem('mallory-pref', malloryId);
    const one = h.fake.state.slashCommand('forget', CHANNEL_ID, alice, { memory: 'tea' });
    assert.match(await replyOf(one.id), /Forgot your memory `tea`/);
    const missing = h.fake.state.slashCommand('forget', CHANNEL_ID, alice, { memory: 'mallory-pref' });
    assert.match(await replyOf(missing.id), /no memory named/);
    const all = h.fake.state.slashCommand('forget', CHANNEL_ID, alice);
    assert.match(await replyOf(all.id), /Forgot all 1 of your memories/);
    assert.deepEqual(
      (await h.db.stores.memories.list({ scope: 'user' })).map((m) => m.name),
      ['mallory-pref'],
    );
  });
});
