/**
 * kill -9 of the real gateway process around a committed answer's posts on Slack (docs/design/durability.md). Slack has
 * no idempotent post: an answer's posts carry message metadata naming their key, and a restart that shows a committed
 * answer looks for them in the thread (`conversations.replies`, `include_all_metadata`) before posting. So a post that
 * landed while its ts was never recorded is edited, not doubled; one that never landed is posted once; and no question
 * is answered twice.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from '../fakes/fake-slack.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';

const CHANNEL = 'C0001';
const NOTE = /Interrupted by a restart/;
const words = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}${index} `);

describe('kill -9 around the posts of a committed answer on Slack', () => {
  let slack: FakeSlack;
  let llm: FakeLlmServer;
  let gateways: GatewayProcesses;
  let user: FakeSlackUser;

  before(async () => {
    [slack, llm] = await Promise.all([FakeSlack.start(), startFakeLlmServer()]);
    gateways = new GatewayProcesses({ llm, slack });
    await gateways.start();
    await gateways.linkUser('slack', 'U0GIL', 'gil');
    user = slack.user('U0GIL', 'gil');
  });
  after(async () => {
    await gateways?.close();
    await Promise.allSettled([slack?.close(), llm?.close()]);
  });

  const replies = (threadTs: string): FakeSlackMessage[] =>
    slack.state.thread(CHANNEL, threadTs).filter((message) => message.user === BOT_USER_ID);

  /** The stored history of the thread's workstream: the contents of its rows, oldest first. */
  async function history(threadTs: string): Promise<string[]> {
    const route = await gateways.stores().routes.getRoute('slack', `${CHANNEL}:${threadTs}`);
    const rows = (await gateways
      .db()('conversations')
      .where({ ws_id: route?.wsId ?? '' })
      .orderBy('id')
      .select('content')) as Array<{ content: string }>;
    return rows.map((row) => row.content.trim());
  }

  /** The thread's recorded live state (`channel_routes.live_state`), '' when none. */
  async function liveState(threadTs: string): Promise<string> {
    return (await gateways.stores().routes.getRoute('slack', `${CHANNEL}:${threadTs}`))?.liveState ?? '';
  }

  async function journalEmpty(): Promise<void> {
    await waitFor(
      async () => (await gateways.db()('turn_journal').select('turn_id')).length === 0,
      'nothing left to settle',
      30_000,
    );
  }

  it('killed after the answer was posted but before its ts was recorded: the restart finds it and does not post again', async () => {
    const requestsBefore = llm.requests.length;
    const answer = words('kappa', 8).join('').trim();
    llm.enqueue({ text: words('kappa', 8), delayMs: 5, hangAfterStop: true });
    // The first post (live or final) fails, so the answer is posted by its final edit, keyed; that post lands but its
    // reply never comes: the gateway cannot record its ts.
    slack.failNext('chat.postMessage', 'internal_error');
    slack.holdReplyNext('chat.postMessage');
    const threadTs = slack.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> a quick answer, please`).message.ts;
    const posted = await slack.waitFor(
      () => replies(threadTs).find((message) => message.text.trim() === answer),
      30_000,
      'the answer posted',
    );
    assert.equal(posted.metadata?.event_type, 'sandpiper_answer', 'the post carries its key');
    await waitFor(async () => (await history(threadTs)).includes(answer), 'the answer to be committed', 30_000);
    await gateways.kill();

    await gateways.start();
    await journalEmpty();
    await slack.waitFor(
      () => slack.callsOf('conversations.replies').find((call) => String(call.body.include_all_metadata) === 'true'),
      30_000,
      'the thread searched for the post',
    );
    assert.equal(llm.requests.length, requestsBefore + 1, 'not answered a second time');
    assert.deepEqual(
      replies(threadTs).map((message) => message.text.trim()),
      [answer],
      'the answer shown once, without a note',
    );
    assert.equal((await history(threadTs)).filter((content) => content === answer).length, 1, 'stored once');
  });

  it("killed between the answer's commit and its first post: the restart posts the committed text, once", async () => {
    const requestsBefore = llm.requests.length;
    const answer = words('lambda', 8).join('').trim();
    llm.enqueue({ text: words('lambda', 8), delayMs: 5, hangAfterStop: true });
    // The thread's first post is rate limited for a minute: nothing of the answer is shown or recorded when it commits.
    slack.rateLimit('chat.postMessage', 1, 60);
    const threadTs = slack.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> another quick answer`).message.ts;
    await waitFor(async () => (await history(threadTs)).includes(answer), 'the answer to be committed', 30_000);
    // The kill comes after the limited post was tried: killed before it, the restart's own post met the limit and
    // waited a minute for it (failed 1 of 3 runs).
    await slack.waitFor(
      () => slack.callsOf('chat.postMessage').some((call) => call.status === 429),
      30_000,
      'the first post rate limited',
    );
    assert.deepEqual(replies(threadTs), [], 'nothing shown yet');
    await gateways.kill();

    await gateways.start();
    await journalEmpty();
    await slack.waitFor(
      () => replies(threadTs).find((message) => message.text.trim() === answer),
      30_000,
      'the committed answer posted',
    );
    assert.equal(llm.requests.length, requestsBefore + 1, 'not answered a second time');
    assert.deepEqual(
      replies(threadTs).map((message) => message.text.trim()),
      [answer],
      'once, without a note',
    );
  });

  it('native stream: killed before its stream was stopped, the restart stops it and edits in the committed answer', async () => {
    slack.streams.rules.enabled = true;
    try {
      const requestsBefore = llm.requests.length;
      const answer = words('sigma', 12).join('').trim();
      llm.enqueue({ text: words('sigma', 12), delayMs: 10, hangAfterStop: true });
      // The stream's stop is rate limited for a minute: the answer commits while its message still streams.
      slack.rateLimit('chat.stopStream', 1, 60);
      const threadTs = slack.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> stream it, please`).message.ts;
      const streamed = await slack.waitFor(
        () => replies(threadTs).find((message) => slack.streams.isOpen(message)),
        30_000,
        'the answer streaming',
      );
      await waitFor(async () => (await history(threadTs)).includes(answer), 'the answer to be committed', 30_000);
      await waitFor(
        async () => (await liveState(threadTs)).includes(streamed.ts),
        'the streamed message recorded',
        30_000,
      );
      // Killed while the stop waits out its rate limit (the restart's own stop is then answered at once).
      await slack.waitFor(
        () => slack.callsOf('chat.stopStream').find((call) => call.body.ts === streamed.ts),
        30_000,
        'the stream stop tried',
      );
      await gateways.kill();

      await gateways.start();
      await journalEmpty();
      await slack.waitFor(
        () => replies(threadTs).find((message) => message.ts === streamed.ts && message.text.trim() === answer),
        30_000,
        'the streamed message showing the committed answer',
      );
      assert.equal(llm.requests.length, requestsBefore + 1, 'not answered a second time');
      assert.equal(slack.streams.isOpen(streamed), false, 'the stream left open was stopped');
      assert.deepEqual(
        replies(threadTs).map((message) => message.text.trim()),
        [answer],
        'one message: the streamed one, finished; no second post, no note',
      );
    } finally {
      slack.streams.rules.enabled = false;
    }
  });

  it('killed right after the final edit of a complete answer: the restart shows it once and does not answer again', async () => {
    const requestsBefore = llm.requests.length;
    const answer = words('omega', 30).join('').trim();
    llm.enqueue({ text: words('omega', 30), delayMs: 40, hangAfterStop: true });
    const threadTs = slack.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> a longer answer`).message.ts;
    await slack.waitFor(
      () => replies(threadTs).find((message) => message.text.trim() === answer && message.blocks.length === 0),
      30_000,
      'the final edit',
    );
    await waitFor(async () => (await history(threadTs)).includes(answer), 'the answer to be committed', 30_000);
    await gateways.kill();

    await gateways.start();
    await journalEmpty();
    assert.equal(llm.requests.length, requestsBefore + 1, 'not answered a second time');
    const texts = replies(threadTs).map((message) => message.text.trim());
    assert.deepEqual(texts, [answer], 'one answer');
    assert.ok(!texts.some((text) => NOTE.test(text)), 'no interruption note');
  });
});
