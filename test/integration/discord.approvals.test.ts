/** End to end: tool approval cards in Discord threads — approve, refuse strangers, double clicks, Always, Reject. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

describe('discord approvals', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  let mallory: FakeUser;
  before(async () => {
    h = await DiscordHarness.start();
    alice = (await h.linkedUser('400000000000000011', 'alice')).user;
    mallory = (await h.linkedUser('400000000000000012', 'mallory')).user;
  });
  after(async () => {
    await h.close();
  });

  const reply = (interactionId: string) => () => h.fake.state.interactions.get(interactionId)?.reply;

  it('runs the tool after the owner approves, refuses a stranger and answers a double click harmlessly', async () => {
    h.llm.enqueue(bash('call_a1', 'echo approved-run'), { text: 'The command printed approved-run.' });
    const { threadId } = await h.mention(alice, 'run echo please');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    assert.ok(JSON.stringify(card.embeds).includes('bash'));
    const approve = h.button(card, 'Approve');
    assert.ok(approve && h.button(card, 'Always') && h.button(card, 'Reject'));

    const stranger = h.fake.state.clickButton(card.id, approve, mallory);
    const refusal = await h.fake.waitFor(reply(stranger.id), 15_000, 'refusal');
    assert.match(refusal, /Only the owner/);
    assert.equal(h.fake.state.interactions.get(stranger.id)?.ephemeral, true);
    assert.deepEqual(h.fake.state.interactions.get(stranger.id)?.callbacks, [5], 'acknowledged with a private defer');
    assert.equal(card.components.length, 1, 'the card stays enabled after a refused click');
    assert.equal(h.llm.requests.length, 1, 'nothing ran');

    const click = h.fake.state.clickButton(card.id, approve, alice);
    assert.equal(await h.fake.waitFor(reply(click.id), 15_000, 'approval reply'), 'Approved.');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'The command printed approved-run.'),
      20_000,
      'final answer',
    );
    assert.match(JSON.stringify(h.llm.requests[1]?.body), /approved-run/);
    assert.equal(card.components.length, 0);
    assert.match(JSON.stringify(card.embeds), /Approved/);
    assert.match(JSON.stringify(card.embeds), /alice/);

    const again = h.fake.state.clickButton(card.id, approve, alice);
    assert.match(await h.fake.waitFor(reply(again.id), 15_000, 'second click reply'), /already decided/);
    assert.equal(h.llm.requests.length, 2, 'the second click ran nothing');
  });

  it('stops asking for a tool after Always', async () => {
    const before = h.llm.requests.length;
    h.llm.enqueue(bash('call_b1', 'echo first'), bash('call_b2', 'echo second'), { text: 'Both ran.' });
    const { threadId } = await h.mention(alice, 'run two commands');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const click = h.fake.state.clickButton(card.id, h.button(card, 'Always') ?? '', alice);
    assert.equal(await h.fake.waitFor(reply(click.id), 15_000, 'always reply'), 'Always approved.');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Both ran.'), 20_000, 'final answer');
    assert.equal(h.cards(threadId).length, 1, 'no second card for the same tool');
    const toolLine = h.botMessages(threadId).find((m) => JSON.stringify(m.embeds).includes('bash — Done'));
    assert.ok(toolLine, 'the auto-approved call is shown as a compact tool line with its result');
    assert.match(JSON.stringify(toolLine.embeds), /second/);
    assert.equal(h.llm.requests.length - before, 3);
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /second/);
  });

  it('passes the rejection feedback from the modal to the model', async () => {
    h.llm.enqueue(bash('call_c1', 'rm -rf /tmp/nothing'), { text: 'Understood, I will not delete anything.' });
    const { threadId } = await h.mention(alice, 'clean up');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const reject = h.button(card, 'Reject') ?? '';
    const click = h.fake.state.clickButton(card.id, reject, alice);
    const modal = await h.fake.waitFor(() => h.fake.state.interactions.get(click.id)?.modal, 15_000, 'reject modal');
    const submit = h.fake.state.submitModal(String(modal.custom_id), threadId, alice, {
      feedback: 'please list the files first',
    });
    assert.equal(await h.fake.waitFor(reply(submit.id), 15_000, 'reject reply'), 'Rejected.');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Understood, I will not delete anything.'),
      20_000,
      'final answer',
    );
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /please list the files first/);
    assert.match(JSON.stringify(card.embeds), /Rejected/);
  });

  it('lets an admin decide someone else’s card and tells an unlinked user to link first', async () => {
    const { user: admin } = await h.linkedUser('400000000000000013', 'root', { isAdmin: true });
    const outsider = h.fake.user('400000000000000014', 'outsider');
    h.llm.enqueue(bash('call_d1', 'echo by-admin'), { text: 'Admin approved it.' });
    const { threadId } = await h.mention(alice, 'needs an admin');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const approve = h.button(card, 'Approve') ?? '';
    const unlinked = h.fake.state.clickButton(card.id, approve, outsider);
    assert.match(await h.fake.waitFor(reply(unlinked.id), 15_000, 'unlinked reply'), /not linked/);
    const click = h.fake.state.clickButton(card.id, approve, admin);
    assert.equal(await h.fake.waitFor(reply(click.id), 15_000, 'admin reply'), 'Approved.');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Admin approved it.'),
      20_000,
      'final answer',
    );
    assert.match(JSON.stringify(card.embeds), /root/);
  });
});
