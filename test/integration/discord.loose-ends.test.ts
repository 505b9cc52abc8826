/** End to end on Discord: /cancel with nothing running, clicks on requests nobody waits for, reactivated thread owners. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';

describe('discord loose ends', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  let aliceId: string;
  let bob: FakeUser;
  before(async () => {
    h = await DiscordHarness.start({ flags: { 'discord.thread_participants': 'linked' } });
    ({ user: alice, userId: aliceId } = await h.linkedUser('400000000000000611', 'alice'));
    bob = (await h.linkedUser('400000000000000612', 'bob')).user;
  });
  after(async () => {
    await h.close();
  });

  const replyOf = (id: string) =>
    h.fake.waitFor(() => h.fake.state.interactions.get(id)?.reply, 15_000, 'interaction reply');

  /** Alice opens a thread and waits for the answer; resolves with the thread and its workstream id. */
  async function thread(question: string, answer: string): Promise<{ threadId: string; wsId: string }> {
    h.llm.enqueue({ text: answer });
    const { threadId } = await h.mention(alice, question);
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === answer), 20_000, 'answer');
    const wsId = (await h.db.stores.routes.getRoute('discord', threadId))?.wsId ?? '';
    return { threadId, wsId };
  }

  it('answers /cancel with "Nothing is running." when no turn runs, and cancels nothing', async () => {
    const { threadId, wsId } = await thread('quick one', 'Quick answer.');
    const cancel = h.fake.state.slashCommand('cancel', threadId, alice);
    assert.equal(await replyOf(cancel.id), 'Nothing is running.');
    assert.ok(!h.textMessages(threadId).some((m) => m.content === '*Cancelled.*'), 'no cancelled notice');
    assert.equal((await h.db.stores.workstreams.get(wsId))?.state, 'idle');
  });

  it('tells the clicker at once that a request nobody waits for is no longer active, and ends it', async () => {
    const { threadId, wsId } = await thread('leftovers', 'Leftover answer.');
    await h.db.stores.approvals.create({
      approvalId: 'leftover0611',
      wsId,
      turnId: 'old-turn',
      kind: 'tools',
      ownerUserId: aliceId,
      items: { version: 1, calls: [] },
    });
    const message = h.fake.state.createMessage(threadId, h.fake.state.bot, { content: 'an old card' });
    const click = h.fake.state.clickButton(message.id, 'sp:approve:leftover0611', alice);
    assert.equal(await replyOf(click.id), 'This request is no longer active; nothing ran.');
    const row = await h.db.stores.approvals.get('leftover0611');
    assert.equal(row?.state, 'denied');
    assert.equal(row?.decidedBy, 'system');
    const again = h.fake.state.clickButton(message.id, 'sp:approve:leftover0611', alice);
    assert.equal(await replyOf(again.id), 'This request was already decided (cancelled).');
    assert.equal(h.llm.requests.length, 2, 'the model was not called again');
  });

  it('gives a reactivated thread to its original owner, even when another participant writes first', async () => {
    const { threadId, wsId } = await thread('keep my thread', 'Kept.');
    await h.crash();
    await h.db.stores.approvals.cancelPending(wsId);
    assert.equal(await h.db.stores.workstreams.delete(wsId), true);
    await h.boot();
    await h.fake.waitFor(() => h.fake.gateway.connected === 1, 15_000, 'reconnect');

    h.llm.enqueue({ text: 'Fresh start for bob.' });
    h.fake.state.injectMessage(threadId, bob, 'is anyone here?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Fresh start for bob.'),
      20_000,
      'answer from the new workstream',
    );
    assert.ok(h.textMessages(threadId).some((m) => m.content === '*Workstream reactivated.*'));
    const route = await h.db.stores.routes.getRoute('discord', threadId);
    assert.ok(route && route.wsId !== wsId, 'the thread routes to a new workstream');
    assert.equal(route.ownerUserId, aliceId, 'the route remembers the owner');
    assert.equal((await h.db.stores.workstreams.get(route.wsId))?.userId, aliceId, 'alice still owns the thread');
  });
});
