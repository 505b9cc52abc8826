/** End to end: Block Kit approval cards in Slack threads — approve, refuse strangers privately, Always, Reject with feedback. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SlackHarness } from '../fakes/fake-slack-harness.js';
import type { FakeSlackUser } from '../fakes/fake-slack.js';

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

describe('slack approvals', () => {
  let h: SlackHarness;
  let alice: FakeSlackUser;
  let mallory: FakeSlackUser;
  before(async () => {
    h = await SlackHarness.start();
    alice = (await h.linkedUser('U0ALICE', 'alice')).user;
    mallory = (await h.linkedUser('U0MALLORY', 'mallory')).user;
  });
  after(async () => {
    await h.close();
  });

  const privateReplies = (user: FakeSlackUser) => h.fake.state.privateTo(user.id);

  it('runs the tool after the owner approves and refuses a stranger privately, leaving the card enabled', async () => {
    h.llm.enqueue(bash('call_a1', 'echo approved-run'), { text: 'The command printed approved-run.' });
    const { threadTs } = h.mention(alice, 'run echo please');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    assert.equal(card.text, 'Tool approval required');
    assert.match(JSON.stringify(card.blocks), /bash/);
    assert.match(JSON.stringify(card.blocks), /echo approved-run/);
    const buttons = h.fake.state.buttons(card);
    assert.deepEqual(
      buttons.map((b) => b.text?.text),
      ['Approve', 'Always', 'Reject'],
    );
    assert.deepEqual(
      buttons.map((b) => b.style),
      ['primary', undefined, 'danger'],
    );
    const approve = h.button(card, 'Approve') ?? '';
    const approvalId = h.fake.state.buttons(card)[0]?.value ?? '';

    const stranger = h.fake.click(card, approve, mallory);
    const refusal = await h.fake.waitFor(() => privateReplies(mallory).at(-1), 15_000, 'refusal');
    assert.match(refusal, /Only the owner/);
    assert.ok(h.fake.acks.has(stranger.envelopeId), 'the click was acknowledged');
    assert.equal(h.fake.state.buttons(card).length, 3, 'the card stays enabled after a refused click');
    assert.equal(h.llm.requests.length, 1, 'nothing ran');
    assert.equal(privateReplies(alice).length, 0, 'the owner saw nothing of it');

    h.fake.click(card, approve, alice);
    assert.equal(await h.fake.waitFor(() => privateReplies(alice).at(-1), 15_000, 'approval reply'), 'Approved.');
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'The command printed approved-run.'),
      20_000,
      'final answer',
    );
    assert.match(JSON.stringify(h.llm.requests[1]?.body), /approved-run/);
    assert.equal(h.fake.state.buttons(card).length, 0, 'the buttons are gone');
    assert.match(JSON.stringify(card.blocks), /Approved by alice/);

    h.fake.click(card, approve, alice, approvalId);
    assert.match(
      await h.fake.waitFor(
        () => (privateReplies(alice).length >= 2 ? privateReplies(alice).at(-1) : undefined),
        15_000,
        'second click',
      ),
      /already decided/,
    );
    assert.equal(h.llm.requests.length, 2, 'the second click ran nothing');
  });

  it('stops asking for a tool after Always', async () => {
    const before = h.llm.requests.length;
    h.llm.enqueue(bash('call_b1', 'echo first'), bash('call_b2', 'echo second'), { text: 'Both ran.' });
    const { threadTs } = h.mention(alice, 'run two commands');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    h.fake.click(card, h.button(card, 'Always') ?? '', alice);
    await h.fake.waitFor(() => h.textReplies(threadTs).find((m) => m.text === 'Both ran.'), 20_000, 'final answer');
    assert.equal(h.cards(threadTs).length, 1, 'no second card for the same tool');
    assert.match(JSON.stringify(card.blocks), /Always approved by alice/);
    const toolLines = h.botReplies(threadTs).filter((m) => JSON.stringify(m.blocks).includes('bash* — Done'));
    assert.equal(toolLines.length, 2, 'both calls are shown as compact tool lines with their results');
    assert.match(JSON.stringify(toolLines[1]?.blocks), /second/);
    assert.equal(h.llm.requests.length - before, 3);
  });

  it('opens a modal for Reject and passes its feedback to the model', async () => {
    h.llm.enqueue(bash('call_c1', 'rm -rf /tmp/nothing'), { text: 'Understood, I will not delete anything.' });
    const { threadTs } = h.mention(alice, 'clean up');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    const click = h.fake.click(card, h.button(card, 'Reject') ?? '', alice);
    const view = await h.fake.waitFor(
      () => h.fake.state.views.find((v) => v.triggerId === click.triggerId),
      15_000,
      'reject modal',
    );
    assert.equal((view.view.title as { text: string }).text, 'Reject');
    const submit = h.fake.submitView(click.triggerId, alice, { feedback: 'please list the files first' });
    await h.fake.waitFor(() => h.fake.acks.has(submit), 15_000, 'submission ack');
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Understood, I will not delete anything.'),
      20_000,
      'final answer',
    );
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /please list the files first/);
    assert.match(JSON.stringify(card.blocks), /Rejected by alice/);
    assert.match(JSON.stringify(card.blocks), /please list the files first/);
    assert.equal(privateReplies(alice).at(-1), 'Rejected.');
  });
});
