/** End to end through bolt and the composition root: the channel allow-list, direct messages, and notify deliveries as DMs. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintServiceToken } from '../../src/gateway/http/auth.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from '../fakes/fake-slack.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const ALLOWED = 'C0001';
const OTHER = 'C0002';
const SECRET = 'slack-direct-test-secret-slack-direct-test';

describe('slack allow-list, direct messages and notify', () => {
  let slack: FakeSlack;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeSlackUser;

  before(async () => {
    [slack, llm] = await Promise.all([FakeSlack.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      slack,
      llm,
      jwtSecret: SECRET,
      flags: { 'slack.channel_ids': [ALLOWED], 'slack.dm': false },
      users: [['slack', 'U0ALICE', 'alice']],
      waitConnected: true,
    });
    alice = slack.user('U0ALICE', 'alice');
  });

  after(async () => {
    await gateway?.close();
  });

  const botIn = (channel: string): FakeSlackMessage[] =>
    slack.state.messages.filter((m) => m.channel === channel && m.user === BOT_USER_ID);
  const allAcked = (envelopes: string[]) => () => envelopes.every((id) => slack.acks.has(id));

  it('ignores mentions and thread replies in channels outside slack.channel_ids and refuses /sandpiper ask there', async () => {
    const requestsBefore = llm.requests.length;
    const outside = slack.userMessage(alice, OTHER, `<@${BOT_USER_ID}> hello from elsewhere`);
    const reply = slack.userMessage(alice, OTHER, `<@${BOT_USER_ID}> and a thread reply`, outside.message.ts);
    const ask = slack.slashCommand(alice, OTHER, 'ask what time is it');
    assert.equal(
      await slack.waitFor(() => slack.state.privateTo(alice.id)[0], 15_000, 'ask refusal'),
      'I am not allowed to open threads in this channel.',
    );
    await slack.waitFor(
      allAcked([...outside.envelopes, ...reply.envelopes, ask.envelopeId]),
      15_000,
      'acknowledgements',
    );

    // A mention in the allowed channel afterwards is answered; by then the earlier events have long been handled.
    llm.enqueue({ text: 'Hello from the allowed channel.' });
    const inside = slack.userMessage(alice, ALLOWED, `<@${BOT_USER_ID}> hello`);
    await slack.waitFor(
      () => slack.state.thread(ALLOWED, inside.message.ts).find((m) => m.text === 'Hello from the allowed channel.'),
      20_000,
      'answer in the allowed channel',
    );
    assert.equal(llm.requests.length - requestsBefore, 1, 'only the allowed mention reached the model');
    assert.deepEqual(botIn(OTHER), [], 'nothing was posted in the other channel');
    assert.deepEqual(slack.state.messages.find((m) => m.ts === outside.message.ts)?.reactions, []);
  });

  it('answers a direct message with the documented notice when slack.dm = false', async () => {
    const requestsBefore = llm.requests.length;
    slack.userMessage(alice, 'D0ALICE', 'hi there, can you help?');
    const notice = await slack.waitFor(() => botIn('D0ALICE')[0], 15_000, 'DM notice');
    assert.equal(
      notice.text,
      "_Direct messages aren't supported. Use `/sandpiper ask` in a channel or @mention me to start a conversation._",
    );
    assert.equal(notice.threadTs, undefined);
    assert.equal(llm.requests.length, requestsBefore, 'the model was not asked');
  });

  it('delivers a notify request for a linked Slack user as a DM opened with conversations.open', async () => {
    const token = await mintServiceToken({ secret: SECRET, audience: 'turnstone-channel' });
    const opensBefore = slack.callsOf('conversations.open').length;
    const response = await fetch(`${gateway.url}/v1/api/notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ target: { username: 'alice' }, message: 'deploy finished <!channel>', title: 'CI' }),
    });
    assert.equal(response.status, 200);
    const { results } = (await response.json()) as {
      results: Array<{ channel_type: string; status: string; message_id: string }>;
    };
    assert.deepEqual(
      results.map((r) => [r.channel_type, r.status]),
      [['slack', 'sent']],
    );
    const opens = slack.callsOf('conversations.open').slice(opensBefore);
    assert.deepEqual(
      opens.map((c) => c.body.users),
      ['U0ALICE'],
    );
    const posted = slack.state.messages.find((m) => m.ts === results[0]?.message_id);
    assert.equal(posted?.channel, 'D0ALICE', 'posted in the DM channel conversations.open returned');
    assert.equal(posted?.user, BOT_USER_ID);
    assert.equal(posted?.text, '*CI*\ndeploy finished &lt;!channel&gt;');
  });
});
