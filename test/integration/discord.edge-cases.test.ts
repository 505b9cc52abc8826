/** End to end: empty answers, pasted tokens with whitespace, and channels the bot may not post in. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';

describe('discord edge cases', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  const blankPosts = (): number =>
    h.fake.requests.filter(
      (r) =>
        r.method === 'POST' &&
        /\/messages$/.test(r.path) &&
        !String((r.body as { content?: unknown })?.content ?? '').trim() &&
        !(r.body as { embeds?: unknown[] })?.embeds?.length,
    ).length;

  it('shows a short note instead of an empty message when the model answers nothing', async () => {
    const { user } = await h.linkedUser('400000000000000091', 'hal');
    h.llm.enqueue({ text: '' }, { text: ['\n', '  ', '\n'] }, { text: 'Now with words.' });
    const { threadId } = await h.mention(user, 'say nothing');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === '*No answer.*'),
      20_000,
      'empty-answer note',
    );
    h.fake.state.injectMessage(threadId, user, 'only whitespace please');
    await h.fake.waitFor(
      () => h.textMessages(threadId).filter((m) => m.content === '*No answer.*').length === 2,
      20_000,
      'second note',
    );
    h.fake.state.injectMessage(threadId, user, 'and now?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Now with words.'),
      20_000,
      'normal answer after empty ones',
    );
    assert.equal(blankPosts(), 0, 'no empty message was ever sent to Discord');
  });

  it('refuses a stranger’s Reject click privately instead of opening the feedback form', async () => {
    const { user: owner } = await h.linkedUser('400000000000000095', 'lena');
    const { user: stranger } = await h.linkedUser('400000000000000096', 'mo');
    h.llm.enqueue(
      { toolCalls: [{ id: 'call_e1', name: 'bash', arguments: JSON.stringify({ command: 'echo hi' }) }] },
      { text: 'Not run.' },
    );
    const { threadId } = await h.mention(owner, 'run something');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const reject = h.button(card, 'Reject') ?? '';
    const refused = h.fake.state.clickButton(card.id, reject, stranger);
    assert.match(
      await h.fake.waitFor(() => h.fake.state.interactions.get(refused.id)?.reply, 15_000, 'refusal'),
      /Only the owner/,
    );
    const interaction = h.fake.state.interactions.get(refused.id);
    assert.equal(interaction?.modal, undefined, 'no form for a stranger');
    assert.equal(interaction?.ephemeral, true);
    assert.equal(card.components.length, 1, 'the card stays enabled');

    const click = h.fake.state.clickButton(card.id, reject, owner);
    const modal = await h.fake.waitFor(
      () => h.fake.state.interactions.get(click.id)?.modal,
      15_000,
      'feedback form for the owner',
    );
    const submit = h.fake.state.submitModal(String(modal.custom_id), threadId, owner, { feedback: '' });
    assert.equal(
      await h.fake.waitFor(() => h.fake.state.interactions.get(submit.id)?.reply, 15_000, 'reject reply'),
      'Rejected.',
    );
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Not run.'),
      20_000,
      'answer after the rejection',
    );
  });

  it('links an account when the pasted token carries surrounding whitespace', async () => {
    const created = await h.db.stores.users.createUser('ivy');
    const token = await h.tokenFor(created.userId);
    const ivy = h.fake.user('400000000000000092', 'ivy');
    const submit = h.fake.state.submitModal('sp:link', CHANNEL_ID, ivy, { token: `  ${token}\n` });
    assert.match(
      await h.fake.waitFor(() => h.fake.state.interactions.get(submit.id)?.reply, 15_000, 'link reply'),
      /Account linked/,
    );
  });

  it('tells the writer when the thread cannot be opened for lack of permission, and works once it is granted', async () => {
    const { user } = await h.linkedUser('400000000000000093', 'jo');
    h.fake.refuse('POST', /^\/channels\/\d+\/messages\/\d+\/threads$/, 1);
    const message = h.fake.state.injectMessage(CHANNEL_ID, user, 'open a thread', true);
    const notice = await h.fake.waitFor(
      () =>
        h
          .botMessages(CHANNEL_ID)
          .find((m) => m.content.includes('could not be handled') && m.createdAt >= message.createdAt),
      15_000,
      'error notice in the channel',
    );
    assert.match(notice.content, /^\*\*Error:\*\*/);
    h.llm.enqueue({ text: 'Thread works.' });
    const { threadId } = await h.mention(user, 'try again');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Thread works.'), 20_000, 'answer');
  });

  it('stops retrying posts into a thread it may not write in, instead of looping for the whole turn', async () => {
    const { user } = await h.linkedUser('400000000000000094', 'kai');
    h.llm.enqueue({ text: 'Visible.' });
    const { threadId } = await h.mention(user, 'first');
    await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'Visible.'), 20_000, 'first answer');
    const path = new RegExp(`^/channels/${threadId}/messages$`);
    h.fake.refuse('POST', path, 1000);
    const before = h.fake.requests.length;
    h.llm.enqueue({ text: Array.from({ length: 30 }, (_, i) => `word${i} `), delayMs: 20 });
    h.fake.state.injectMessage(threadId, user, 'second');
    await h.llm.waitFor((llm) => llm.requests.length >= 2 && llm.pending === 0, 20_000);
    await h.fake.waitFor(
      () => h.runtime.manager.stats().running === 0 && h.gateway.status().workstreams === 0,
      20_000,
      'turn over',
    );
    const attempts = h.fake.requests.slice(before).filter((r) => r.method === 'POST' && path.test(r.path)).length;
    assert.ok(attempts <= 3, `posts attempted into the forbidden thread: ${attempts}`);
    h.fake.allowAll();
    h.llm.enqueue({ text: 'Back again.' });
    h.fake.state.injectMessage(threadId, user, 'third');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Back again.'),
      20_000,
      'answer after permission is back',
    );
  });
});
