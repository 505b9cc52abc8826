/** End to end: the `/sandpiper` slash command over bolt — link (modal), unlink, ask, bare ask, status, cancel, help. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';

describe('slack slash command', () => {
  let h: SlackHarness;
  before(async () => {
    h = await SlackHarness.start();
  });
  after(async () => {
    await h.close();
  });

  /** The next private answer a user gets after `count` earlier ones. */
  const nextReply = (user: FakeSlackUser, count: number) =>
    h.fake.waitFor(() => h.fake.state.privateTo(user.id)[count], 15_000, 'private answer');

  it('links through a modal: an invalid token is refused, a valid one links, and the token never reaches a channel', async () => {
    const owner = await h.db.stores.users.createUser('erin');
    const token = await h.tokenFor(owner.userId);
    const erin = h.fake.user('U0ERIN', 'erin');

    const open = h.fake.slashCommand(erin, CHANNEL, 'link');
    const view = await h.fake.waitFor(
      () => h.fake.state.views.find((v) => v.triggerId === open.triggerId),
      15_000,
      'link modal',
    );
    assert.ok(h.fake.acks.has(open.envelopeId), 'the command was acknowledged');
    assert.equal((view.view.title as { text: string }).text, 'Link Account');
    h.fake.submitView(open.triggerId, erin, { token: 'sp_not-a-real-token' });
    assert.match(await nextReply(erin, 0), /Invalid token/);
    assert.equal(await h.db.stores.users.getLink('slack', erin.id), undefined);

    const again = h.fake.slashCommand(erin, CHANNEL, 'link');
    await h.fake.waitFor(
      () => h.fake.state.views.find((v) => v.triggerId === again.triggerId),
      15_000,
      'second link modal',
    );
    h.fake.submitView(again.triggerId, erin, { token });
    assert.match(await nextReply(erin, 1), /Account linked! You are erin/);
    assert.equal((await h.db.stores.users.getLink('slack', erin.id))?.userId, owner.userId);
    const leaked = h.fake.calls.some((c) => c.method.startsWith('chat.') && JSON.stringify(c.body).includes(token));
    assert.equal(leaked, false, 'the token never appears in a channel');

    h.fake.slashCommand(erin, CHANNEL, 'unlink');
    assert.equal(await nextReply(erin, 2), 'Account unlinked.');
    h.fake.slashCommand(erin, CHANNEL, 'ask anything');
    assert.match(await nextReply(erin, 3), /not linked\. Use `\/sandpiper link` first/);
  });

  it('answers a bare command with help', async () => {
    const fay = h.fake.user('U0FAY', 'fay');
    h.fake.slashCommand(fay, CHANNEL, '');
    const help = await nextReply(fay, 0);
    assert.match(help, /\/sandpiper ask/);
    assert.match(help, /\/sandpiper link/);
  });

  it('starts a thread from a bare question, reports its status and cancels its turn', async () => {
    const { user } = await h.linkedUser('U0GINA', 'gina');
    h.llm.enqueue({ text: ['Working', ' on it', ' slowly'], hang: true });
    h.fake.slashCommand(user, CHANNEL, 'summarise the logs');
    assert.match(await nextReply(user, 0), /Started/);
    const opener = await h.fake.waitFor(
      () => h.fake.state.topLevel(CHANNEL).find((m) => m.user === BOT_USER_ID && m.text.includes('summarise the logs')),
      15_000,
      'opener',
    );
    assert.match(opener.text, /<@U0GINA>/);
    await h.fake.waitFor(() => h.textReplies(opener.ts).length > 0, 15_000, 'streaming in the thread');
    const sent = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.match(sent, /summarise the logs/);

    h.fake.slashCommand(user, CHANNEL, 'status');
    const status = await nextReply(user, 1);
    assert.match(status, /\*Workstream\*/, 'Markdown bold became mrkdwn bold');
    assert.match(status, /Model: fake/);
    assert.match(status, /Pending approvals: 0/);

    h.fake.slashCommand(user, CHANNEL, 'cancel');
    assert.match(await nextReply(user, 2), /Cancelling/);
    await h.fake.waitFor(
      () => h.textReplies(opener.ts).find((m) => m.text === '_Cancelled._'),
      15_000,
      'cancelled notice',
    );

    h.fake.slashCommand(user, CHANNEL, 'close');
    assert.equal(await nextReply(user, 3), 'Workstream closed.');
    const route = await h.db.stores.routes.getRoute('slack', `${CHANNEL}:${opener.ts}`);
    assert.equal((await h.db.stores.workstreams.get(route?.wsId ?? ''))?.state, 'closed');
  });

  it('says status needs a thread when the user has none in the channel', async () => {
    const { user } = await h.linkedUser('U0HANK', 'hank');
    h.fake.slashCommand(user, CHANNEL, 'status');
    assert.match(await nextReply(user, 0), /inside a Sandpiper thread/);
  });
});
