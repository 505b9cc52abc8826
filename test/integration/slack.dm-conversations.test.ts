/**
 * Slack direct messages end to end (bolt in Socket Mode against the fake Slack, `message.im` events): a DM thread is a
 * conversation of its own next to the top-level DM conversation; a top-level DM after a notification continues the DM
 * conversation while a reply in the notification's thread reaches the notification's workstream; an unlinked writer
 * gets the link hint.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';

describe('slack DM conversations', () => {
  let h: SlackHarness;
  let alice: FakeSlackUser;
  const DM = 'D0ALICE';
  before(async () => {
    h = await SlackHarness.start();
    alice = (await h.linkedUser('U0ALICE', 'alice')).user;
  });
  after(async () => {
    await h?.close();
  });

  const bot = (threadTs?: string) =>
    (threadTs === undefined ? h.fake.state.topLevel(DM) : h.fake.state.thread(DM, threadTs))
      .filter((m) => m.user === BOT_USER_ID)
      .map((m) => m.text);
  const lastBody = (): string => JSON.stringify(h.llm.requests.at(-1)?.body);

  it('keeps a DM thread apart from the top-level DM conversation', async () => {
    h.llm.enqueue({ text: 'Top level one.' });
    const opener = h.fake.userMessage(alice, DM, 'top level: the animal is otter').message;
    await h.fake.waitFor(() => bot().includes('Top level one.'), 15_000, 'top-level answer');
    h.llm.enqueue({ text: 'In the thread.' });
    h.fake.userMessage(alice, DM, 'thread: the colour is amber', opener.ts);
    await h.fake.waitFor(() => bot(opener.ts).includes('In the thread.'), 15_000, 'answer in the DM thread');
    assert.doesNotMatch(lastBody(), /otter/, 'the thread is its own conversation');
    h.llm.enqueue({ text: 'Top level two.' });
    h.fake.userMessage(alice, DM, 'top level again');
    await h.fake.waitFor(() => bot().includes('Top level two.'), 15_000, 'second top-level answer');
    assert.match(lastBody(), /otter/);
    assert.doesNotMatch(lastBody(), /amber/);
  });

  it('routes a reply in a notification’s thread to its workstream, and a top-level DM to the DM conversation', async () => {
    h.llm.enqueue({ text: 'On it.' });
    const mention = h.mention(alice, 'track the invoice 4711');
    await h.fake.waitFor(
      () => h.textReplies(mention.threadTs).some((m) => m.text === 'On it.'),
      15_000,
      'thread answer',
    );
    const wsId = await h.workstreamOf(`C0001:${mention.threadTs}`);
    const [posted] = await h.notify({ username: 'alice' }, 'The invoice was paid.', wsId);
    h.llm.enqueue({ text: 'Invoice 4711 is settled.' });
    h.fake.userMessage(alice, DM, 'which invoice?', posted);
    await h.fake.waitFor(
      () => bot(posted).includes('Invoice 4711 is settled.'),
      15_000,
      'answer in the notification thread',
    );
    assert.match(lastBody(), /invoice 4711/);
    h.llm.enqueue({ text: 'Back in the DM.' });
    h.fake.userMessage(alice, DM, 'unrelated question');
    await h.fake.waitFor(() => bot().includes('Back in the DM.'), 15_000, 'top-level answer');
    assert.doesNotMatch(lastBody(), /4711/, 'the DM conversation, not the notification’s workstream');
  });

  it('gives an unlinked writer the link hint', async () => {
    const stranger = h.fake.user('U0STRANGE', 'stranger');
    h.fake.userMessage(stranger, 'D0STRANGE', 'hello');
    const hint = await h.fake.waitFor(
      () => h.fake.state.topLevel('D0STRANGE').find((m) => m.user === BOT_USER_ID),
      15_000,
      'link hint',
    );
    assert.match(hint.text, /link your Slack account first/);
  });
});
