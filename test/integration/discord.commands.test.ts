/** End to end: slash commands over the real discord.js client — /link, /unlink, /ask, /status, /cancel, /close (/model: discord.controls). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';

describe('discord slash commands', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  const replyOf = (id: string) =>
    h.fake.waitFor(() => h.fake.state.interactions.get(id)?.reply, 15_000, 'interaction reply');

  it('registers the commands at start', async () => {
    const names = await h.fake.waitFor(
      () => (h.fake.state.commands.length === 12 ? h.fake.state.commands : undefined),
      15_000,
      'commands',
    );
    const expected = [
      'ask',
      'cancel',
      'close',
      'forget',
      'grants',
      'link',
      'mcp',
      'model',
      'signout',
      'status',
      'steer',
      'unlink',
    ];
    assert.deepEqual((names as { name: string }[]).map((c) => c.name).sort(), expected);
  });

  it('links with a valid token through a modal, and refuses invalid and expired tokens', async () => {
    const owner = await h.db.stores.users.createUser('erin');
    const valid = await h.tokenFor(owner.userId);
    const expired = await h.tokenFor(owner.userId, '2020-01-01T00:00:00');
    const erin = h.fake.user('400000000000000031', 'erin');
    const open = h.fake.state.slashCommand('link', CHANNEL_ID, erin);
    const modal = await h.fake.waitFor(() => h.fake.state.interactions.get(open.id)?.modal, 15_000, 'link modal');
    assert.equal(modal.title, 'Link Account');

    const bad = h.fake.state.submitModal(String(modal.custom_id), CHANNEL_ID, erin, { token: 'sp_not-a-real-token' });
    assert.match(await replyOf(bad.id), /Invalid token/);
    const old = h.fake.state.submitModal(String(modal.custom_id), CHANNEL_ID, erin, { token: expired });
    assert.match(await replyOf(old.id), /expired/);
    assert.equal(await h.db.stores.users.getLink('discord', erin.id), undefined);

    const good = h.fake.state.submitModal(String(modal.custom_id), CHANNEL_ID, erin, { token: valid });
    assert.match(await replyOf(good.id), /Account linked/);
    assert.equal((await h.db.stores.users.getLink('discord', erin.id))?.userId, owner.userId);
    assert.equal(h.fake.state.interactions.get(good.id)?.ephemeral, true);
    const leaked = h.fake.requests.some(
      (r) => r.path.startsWith('/channels/') && JSON.stringify(r.body ?? '').includes(valid),
    );
    assert.equal(leaked, false, 'the token never appears in a channel');

    const unlink = h.fake.state.slashCommand('unlink', CHANNEL_ID, erin);
    assert.equal(await replyOf(unlink.id), 'Account unlinked.');
  });

  it('limits /link to 5 attempts an hour', async () => {
    const frank = h.fake.user('400000000000000032', 'frank');
    const replies: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const submit = h.fake.state.submitModal('sp:link', CHANNEL_ID, frank, { token: `wrong-${i}` });
      replies.push(await replyOf(submit.id));
    }
    assert.match(replies[4] ?? '', /Invalid token/);
    assert.match(replies[5] ?? '', /Too many/);
  });

  it('/ask opens a thread, /status reports on it, /cancel stops the turn and /close closes it', async () => {
    const { user } = await h.linkedUser('400000000000000033', 'gina');
    h.llm.enqueue({ text: ['Working', ' on it', ' slowly'], hang: true });
    const ask = h.fake.state.slashCommand('ask', CHANNEL_ID, user, { message: 'summarise the logs' });
    assert.match(await replyOf(ask.id), /Started/);
    const thread = await h.fake.waitFor(
      () => h.fake.state.threadsOf(CHANNEL_ID).find((t) => t.name === 'summarise the logs'),
      15_000,
      'thread',
    );
    await h.fake.waitFor(() => h.llm.requests.length >= 1 && h.textMessages(thread.id).length > 0, 15_000, 'streaming');

    const status = h.fake.state.slashCommand('status', thread.id, user);
    const text = await replyOf(status.id);
    assert.match(text, /Workstream/);
    assert.match(text, /Model: fake/);
    assert.match(text, /Pending approvals: 0/);

    const { user: stranger } = await h.linkedUser('400000000000000034', 'hank');
    const refused = h.fake.state.slashCommand('cancel', thread.id, stranger);
    assert.match(await replyOf(refused.id), /Only the owner/);

    const cancel = h.fake.state.slashCommand('cancel', thread.id, user);
    assert.match(await replyOf(cancel.id), /Cancelling/);
    await h.fake.waitFor(
      () => h.textMessages(thread.id).find((m) => m.content === '*Cancelled.*'),
      15_000,
      'cancelled notice',
    );

    const close = h.fake.state.slashCommand('close', thread.id, user);
    assert.equal(await replyOf(close.id), 'Workstream closed.');
    await h.fake.waitFor(() => thread.archived, 15_000, 'archived thread');
    const wsId = (await h.db.stores.routes.getRoute('discord', thread.id))?.wsId ?? '';
    assert.equal((await h.db.stores.workstreams.get(wsId))?.state, 'closed');
  });

  it('answers an unlinked user with a hint at most once a day', async () => {
    const ivan = h.fake.user('400000000000000035', 'ivan');
    h.fake.state.injectMessage(CHANNEL_ID, ivan, 'hello?', true);
    await h.fake.waitFor(() => h.botMessages(CHANNEL_ID).find((m) => m.content.includes('/link')), 15_000, 'hint');

    // Ivan mentions the bot again, in a linked user's thread. Messages in a thread are handled in order, so once the
    // owner's next message there is answered, ivan's mention has been handled (without a second hint).
    const { user: judy } = await h.linkedUser('400000000000000036', 'judy');
    h.llm.enqueue({ text: 'Thread open.' }, { text: 'Still here, Judy.' });
    const { threadId } = await h.mention(judy, 'open a thread');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Thread open.'),
      20_000,
      'first answer',
    );
    h.fake.state.injectMessage(threadId, ivan, 'hello again?', true);
    h.fake.state.injectMessage(threadId, judy, 'are you there?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Still here, Judy.'),
      20_000,
      'answer after ivan',
    );
    const hints = [...h.botMessages(CHANNEL_ID), ...h.botMessages(threadId)].filter((m) => m.content.includes('/link'));
    assert.equal(hints.length, 1);
    assert.equal(
      h.fake.state.threadsOf(CHANNEL_ID).some((t) => t.name.startsWith('hello')),
      false,
    );
  });

  it('stops answering a user right after /unlink (the cached link is dropped at once)', async () => {
    const { user: kim } = await h.linkedUser('400000000000000037', 'kim');
    h.llm.enqueue({ text: 'Hi Kim.' });
    const { threadId } = await h.mention(kim, 'hello there');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Hi Kim.'),
      20_000,
      'answer while linked',
    );
    const unlink = h.fake.state.slashCommand('unlink', CHANNEL_ID, kim);
    assert.equal(await replyOf(unlink.id), 'Account unlinked.');
    const requests = h.llm.requests.length;
    const hints = (): number => h.botMessages(CHANNEL_ID).filter((m) => m.content.includes('/link')).length;
    const hintsBefore = hints();
    h.fake.state.injectMessage(CHANNEL_ID, kim, 'and now?', true);
    await h.fake.waitFor(() => hints() > hintsBefore, 15_000, 'link hint after unlink');
    assert.equal(h.llm.requests.length, requests, 'no model call for an unlinked user');
  });
});
