/** End to end (bolt ↔ fake Slack): downtime, retries and redeliveries start each question once. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';
import { answerByTag, answerCounts } from '../helpers/echo-answers.js';

describe('slack catch-up and retries', () => {
  let h: SlackHarness;
  let user: FakeSlackUser;
  before(async () => {
    h = await SlackHarness.start();
    answerByTag(h.llm);
    user = (await h.linkedUser('U0MIA', 'mia')).user;
  });
  after(async () => {
    await h.close();
  });

  const answers = (threadTs: string): Map<string, number> => answerCounts(h.textReplies(threadTs).map((m) => m.text));

  it('answers thread replies and mentions written while the gateway was down, once', async () => {
    const { threadTs } = h.mention(user, 'q-first remember the word heron');
    await h.fake.waitFor(() => answers(threadTs).get('q-first'), 20_000, 'first answer');

    await h.crash();
    const lost = h.fake.lost;
    h.fake.userMessage(user, CHANNEL, 'q-missed-reply what word did I say?', threadTs);
    const { message: mention } = h.fake.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> q-missed-mention a new question`);
    h.fake.userMessage(user, CHANNEL, 'q-chatter without a mention');
    assert.equal(h.fake.lost - lost, 4, 'Slack delivered none of them (a mention is two events)');

    await h.boot();
    await h.fake.waitFor(() => answers(threadTs).get('q-missed-reply'), 20_000, 'reply answered after start');
    await h.fake.waitFor(() => answers(mention.ts).get('q-missed-mention'), 20_000, 'mention answered in its thread');
    const turn = h.llm.requests.find((r) => JSON.stringify(r.body).includes('q-missed-reply'));
    assert.match(JSON.stringify(turn?.body), /heron/, 'the missed reply joined the thread history');
    assert.equal(answers(threadTs).get('q-chatter'), undefined);

    // Restart again: the same history is read again and nothing starts twice.
    const reads = h.fake.state.historyReads;
    const requests = h.llm.requests.length;
    await h.crash();
    await h.boot();
    await h.fake.waitFor(() => h.fake.state.historyReads >= reads + 3, 20_000, 'history read again');
    const { threadTs: live } = h.mention(user, 'q-live');
    await h.fake.waitFor(() => answers(live).get('q-live'), 20_000, 'live answer');
    assert.equal(h.llm.requests.length, requests + 1, 'only the new question reached the model');
    assert.equal(answers(threadTs).get('q-missed-reply'), 1);
    assert.equal(answers(mention.ts).get('q-missed-mention'), 1);
  });

  it('starts nothing twice when Slack retries or redelivers an event', async () => {
    const { threadTs, envelopes } = h.mention(user, 'q-redelivered');
    await h.fake.waitFor(() => answers(threadTs).get('q-redelivered'), 20_000, 'answer');
    for (const envelope of envelopes) h.fake.redeliver(envelope);
    const { envelopes: reply } = h.fake.userMessage(user, CHANNEL, 'q-reply-redelivered', threadTs);
    for (const envelope of reply) h.fake.redeliver(envelope, 'http_timeout');
    await h.fake.waitFor(() => answers(threadTs).get('q-reply-redelivered'), 20_000, 'reply answer');

    // Down with retries on: Slack sends the kept events again on the next connection, and catch-up reads them too.
    h.fake.retries = true;
    try {
      await h.crash();
      h.fake.userMessage(user, CHANNEL, 'q-retried-and-fetched', threadTs);
      await h.boot();
      await h.fake.waitFor(() => answers(threadTs).get('q-retried-and-fetched'), 20_000, 'retried answer');
      const { threadTs: live } = h.mention(user, 'q-live-2');
      await h.fake.waitFor(() => answers(live).get('q-live-2'), 20_000, 'live answer');
    } finally {
      h.fake.retries = false;
    }
    assert.ok(h.fake.retried >= 4, 'the fake really sent events again');
    for (const tag of ['q-redelivered', 'q-reply-redelivered', 'q-retried-and-fetched'])
      assert.equal(answers(threadTs).get(tag), 1, `${tag} answered once`);
  });
});
