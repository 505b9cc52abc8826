/** Contract cases of direct messages and notifications: a DM conversation, replies routed to a notification's workstream. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { bash, lacks, type ContractContext } from './driver.js';

export function directCases<U>(ctx: () => ContractContext<U>): void {
  it('holds a conversation in a DM, with an approval, until the close command or the idle time starts a new one', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'direct')) return;
    const dm = d.directPlace(owner);
    d.llm.enqueue({ text: 'Hi in private.' });
    d.sayDirect(owner, 'my favourite colour is teal');
    await d.waitFor(() => d.texts(dm).includes('Hi in private.'), 'answer in the DM');
    d.llm.enqueue(bash('call_dm1', 'echo private'), { text: 'Ran it in the DM.' });
    d.sayDirect(owner, 'run something here');
    const card = await d.waitFor(() => d.cards(dm)[0], 'approval card in the DM');
    assert.deepEqual(card.buttons, ['Approve', 'Always', 'Reject']);
    const approved = d.click(dm, 0, 'Approve', owner);
    assert.equal(await d.waitFor(() => approved.reply(), 'approval reply'), 'Approved.');
    await d.waitFor(() => d.texts(dm).includes('Ran it in the DM.'), 'answer after the tool ran');
    assert.match(JSON.stringify(d.llm.requests.at(-1)?.body), /favourite colour is teal/, 'one conversation');

    assert.match(await d.closeDirect(owner), /closed/i);
    d.llm.enqueue({ text: 'Fresh start.' });
    d.sayDirect(owner, 'hello again');
    await d.waitFor(() => d.texts(dm).includes('Fresh start.'), 'answer after the close');
    assert.doesNotMatch(JSON.stringify(d.llm.requests.at(-1)?.body), /teal/, 'a new conversation after the close');

    d.llm.enqueue({ text: 'Still here.' }, { text: 'After a quiet day.' });
    d.sayDirect(owner, 'remember the word heron');
    await d.waitFor(() => d.texts(dm).includes('Still here.'), 'answer');
    // A day passes after the turn ended (a turn still ending keeps its conversation: it is busy, not idle).
    await d.turnsEnded();
    d.setClockOffset(25 * 3_600_000);
    try {
      d.sayDirect(owner, 'a day later');
      await d.waitFor(() => d.texts(dm).includes('After a quiet day.'), 'answer after the idle time');
    } finally {
      d.setClockOffset(0);
    }
    assert.doesNotMatch(JSON.stringify(d.llm.requests.at(-1)?.body), /heron/, 'a new conversation after the idle time');
  });

  it('routes replies to a notification into its workstream and answers in the DM, also after a restart', async (t) => {
    const { d, owner } = ctx();
    if (lacks(t, d, 'replies', 'direct')) return;
    d.llm.enqueue({ text: 'Noted.' });
    const threadId = await d.mention(owner, 'the code word is tulip');
    await d.waitFor(() => d.texts(threadId).includes('Noted.'), 'thread answer');
    const wsId = await d.workstreamOf(threadId);
    const notification = await d.notify({ username: 'owner' }, 'Your build finished.', wsId);
    d.llm.enqueue({ text: 'The code word was tulip.' });
    const place = d.reply(owner, notification, 'what was the code word?');
    await d.waitFor(() => d.texts(place).includes('The code word was tulip.'), 'answer where the reply was written');
    const first = JSON.stringify(d.llm.requests.at(-1)?.body);
    assert.match(first, /tulip/, 'the notification’s workstream, with its history');
    assert.match(first, /what was the code word/);
    assert.ok(!d.texts(threadId).includes('The code word was tulip.'), 'not answered in the thread');

    await d.restart();
    d.llm.enqueue({ text: 'Second answer.' });
    const answer = d.textIds(place)[d.texts(place).indexOf('The code word was tulip.')] ?? '';
    assert.equal(d.reply(owner, answer, 'and after a restart?'), place);
    await d.waitFor(() => d.texts(place).includes('Second answer.'), 'second answer after the restart');
    assert.match(JSON.stringify(d.llm.requests.at(-1)?.body), /The code word was tulip/, 'the exchange continues');
  });

  it('refuses a reply by someone else and a reply to an expired notification, without asking the model', async (t) => {
    const { d, owner, stranger } = ctx();
    if (lacks(t, d, 'replies', 'others')) return;
    d.llm.enqueue({ text: 'Ready.' });
    const threadId = await d.mention(owner, 'watch the deploy');
    await d.waitFor(() => d.texts(threadId).includes('Ready.'), 'thread answer');
    const wsId = await d.workstreamOf(threadId);
    const requestsBefore = d.llm.requests.length;
    const inChannel = await d.notify('channel', 'Deploy finished.', wsId);
    const strangerPlace = d.reply(stranger, inChannel, 'let me in');
    await d.waitFor(
      () => d.texts(strangerPlace).some((text) => /no longer active/.test(text)),
      'refusal of the stranger',
    );
    const old = await d.notify({ username: 'owner' }, 'An old notice.', wsId);
    await d.turnsEnded();
    d.setClockOffset(8 * 86_400_000);
    try {
      const place = d.reply(owner, old, 'is this still on?');
      await d.waitFor(
        () => d.texts(place).some((text) => /no longer active/.test(text)),
        'refusal of the expired reply',
      );
    } finally {
      d.setClockOffset(0);
    }
    assert.equal(d.llm.requests.length, requestsBefore, 'the model was not asked');
  });
}
