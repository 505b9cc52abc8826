/** Contract cases of approval cards: the owner decides, a stranger is refused, Reject's feedback form, the queue. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { bash, lacks, type ContractContext } from './driver.js';

export function approvalCases<U>(ctx: () => ContractContext<U>): void {
  it('shows an approval card and the owner’s decision on it; the answer follows', async () => {
    const { d, owner } = ctx();
    d.llm.enqueue(bash('call_k0', 'echo owner'), { text: 'Ran the owner’s call.' });
    const threadId = await d.mention(owner, 'run something now');
    const card = await d.waitFor(() => d.cards(threadId)[0], 'approval card');
    assert.deepEqual(card.buttons, ['Approve', 'Always', 'Reject']);
    const approved = d.click(threadId, 0, 'Approve', owner);
    assert.equal(await d.waitFor(() => approved.reply(), 'approval reply'), 'Approved.');
    await d.waitFor(() => d.texts(threadId).includes('Ran the owner’s call.'), 'answer after the tool ran');
    const decided = d.cards(threadId)[0];
    assert.equal(decided?.buttons.length, 0, 'no buttons once decided');
    assert.match(decided?.text ?? '', /approved/i);
  });

  it('refuses a stranger’s click on an approval card, and shows the owner’s decision on it', async (t) => {
    const { d, owner, stranger } = ctx();
    if (lacks(t, d, 'others')) return;
    d.llm.enqueue(bash('call_k1', 'echo contract'), { text: 'Ran it.' });
    const threadId = await d.mention(owner, 'run something');
    const card = await d.waitFor(() => d.cards(threadId)[0], 'approval card');
    assert.deepEqual(card.buttons, ['Approve', 'Always', 'Reject']);
    const refused = d.click(threadId, 0, 'Approve', stranger);
    assert.match(await d.waitFor(() => refused.reply(), 'refusal'), /Only the owner/);
    assert.equal(d.cards(threadId)[0]?.buttons.length, 3, 'the card stays enabled');
    const approved = d.click(threadId, 0, 'Approve', owner);
    assert.equal(await d.waitFor(() => approved.reply(), 'approval reply'), 'Approved.');
    await d.waitFor(() => d.texts(threadId).includes('Ran it.'), 'answer after the tool ran');
    const decided = d.cards(threadId)[0];
    assert.equal(decided?.buttons.length, 0, 'no buttons once decided');
    assert.match(decided?.text ?? '', /approved/i);
    assert.match(decided?.text ?? '', /owner/);
  });

  it('opens the Reject feedback form for the owner only; a stranger is refused without a form', async (t) => {
    const { d, owner, stranger } = ctx();
    if (lacks(t, d, 'others')) return;
    d.llm.enqueue(bash('call_k2', 'rm -rf /tmp/none'), { text: 'I will not.' });
    const threadId = await d.mention(owner, 'delete things');
    await d.waitFor(() => d.cards(threadId)[0], 'approval card');
    const strangerClick = d.click(threadId, 0, 'Reject', stranger);
    assert.match(await d.waitFor(() => strangerClick.reply(), 'stranger refusal'), /Only the owner/);
    assert.equal(strangerClick.formOpened(), false, 'no form for a stranger');
    const ownerClick = d.click(threadId, 0, 'Reject', owner);
    await d.waitFor(() => ownerClick.formOpened(), 'feedback form');
    ownerClick.submitFeedback('list them first');
    await d.waitFor(() => d.texts(threadId).includes('I will not.'), 'answer after the rejection');
    assert.match(JSON.stringify(d.llm.requests.at(-1)?.body), /list them first/);
    assert.match(d.cards(threadId)[0]?.text ?? '', /Rejected/);
  });

  it('marks a queued message and visibly refuses one past the queue bound', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'queue-by-message')) return;
    d.llm.enqueue(bash('call_k3', 'echo hold'), { text: 'Held turn done.' }, { text: 'Queued answer.' });
    const threadId = await d.mention(owner, 'hold the turn');
    // The turn waits for the approval: it is busy, deterministically.
    await d.waitFor(() => d.cards(threadId)[0], 'approval card');
    const queued = d.say(owner, threadId, 'next please');
    await d.waitFor(() => d.reactions(queued).includes('queued'), 'queued reaction');
    const refused = d.say(owner, threadId, 'and one more');
    await d.waitFor(() => d.reactions(refused).includes('refused'), 'refused reaction');
    const approved = d.click(threadId, 0, 'Approve', owner);
    await d.waitFor(() => approved.reply(), 'approval reply');
    await d.waitFor(() => d.texts(threadId).includes('Queued answer.'), 'the queued message is answered');
    assert.ok(
      !JSON.stringify(d.llm.requests.map((request) => request.body)).includes('and one more'),
      'the refused message was not kept',
    );
  });
}
