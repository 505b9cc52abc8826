/**
 * kill -9 of the real gateway process mid-stream on Slack (bolt in Socket Mode against the fake, ADR 0013): the thread
 * keeps the partial answer with a note, the history holds it, and the question is answered once; with
 * `gateway.resume_interrupted = false` only the note is shown and no model call follows.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { INTERRUPTED_MARKER, RESUME_PROMPT } from '../../src/shared/interruption.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from '../fakes/fake-slack.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';

const CHANNEL = 'C0001';
const words = (prefix: string, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}${index} `);

function sentMessages(llm: FakeLlmServer, index: number): Array<{ role: string; content?: unknown }> {
  return ((llm.requests[index]?.body ?? {}) as { messages?: Array<{ role: string }> }).messages ?? [];
}

for (const resume of [true, false]) {
  describe(`kill -9 of the gateway on Slack (gateway.resume_interrupted = ${String(resume)})`, () => {
    let slack: FakeSlack;
    let llm: FakeLlmServer;
    let gateways: GatewayProcesses;
    let user: FakeSlackUser;

    before(async () => {
      [slack, llm] = await Promise.all([FakeSlack.start(), startFakeLlmServer()]);
      gateways = new GatewayProcesses({ llm, slack, gatewayToml: `resume_interrupted = ${String(resume)}` });
      await gateways.start();
      await gateways.linkUser('slack', 'U0FAY', 'fay');
      user = slack.user('U0FAY', 'fay');
    });
    after(async () => {
      await gateways?.close();
      await Promise.allSettled([slack?.close(), llm?.close()]);
    });

    const replies = (threadTs: string): FakeSlackMessage[] =>
      slack.state.thread(CHANNEL, threadTs).filter((message) => message.user === BOT_USER_ID);

    it('mid-stream: the partial answer stays with a note and is in the history; the question is answered once when resuming', async () => {
      llm.enqueue({ text: words('delta', 60), delayMs: 120 });
      const { message } = slack.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> explain everything`);
      const threadTs = message.ts;
      await slack.waitFor(
        () => replies(threadTs).find((reply) => reply.text.includes('delta8 ')),
        30_000,
        'the streaming answer',
      );
      await waitFor(
        async () =>
          (await gateways.db()('turn_journal').select('partial_text')).some((row: { partial_text: string }) =>
            row.partial_text.includes('delta8 '),
          ),
        'the journal',
        30_000,
      );
      await gateways.kill();
      const live = replies(threadTs)[0] as FakeSlackMessage;

      if (resume) llm.enqueue({ text: 'Everything, explained again.' });
      await gateways.start();
      await slack.waitFor(() => /Interrupted by a restart/.test(live.text), 30_000, 'the note on the live message');
      assert.match(live.text, /^delta0 delta1 /, 'the live message keeps the partial answer');
      await waitFor(
        async () => (await gateways.db()('turn_journal').select('turn_id')).length === 0,
        'the turn to be settled',
        30_000,
      );

      if (resume) {
        await slack.waitFor(
          () => replies(threadTs).find((reply) => reply.text === 'Everything, explained again.'),
          30_000,
          'the resumed answer',
        );
        const sent = sentMessages(llm, 1);
        const assistant = sent.filter((entry) => entry.role === 'assistant').at(-1);
        assert.match(String(assistant?.content), /^delta0 delta1 delta2 /);
        assert.ok(String(assistant?.content).endsWith(INTERRUPTED_MARKER));
        assert.equal(sent.at(-1)?.content, RESUME_PROMPT);
        assert.equal(replies(threadTs).filter((reply) => reply.text === 'Everything, explained again.').length, 1);
        assert.equal(llm.requests.length, 2);
      } else {
        assert.doesNotMatch(live.text, /answering again/);
        assert.equal(llm.requests.length, 1, 'no model call after the restart');
        // The partial answer is still in the history for the next message.
        llm.enqueue({ text: 'Picking up from there.' });
        slack.userMessage(user, CHANNEL, 'and then?', threadTs);
        await slack.waitFor(
          () => replies(threadTs).find((reply) => reply.text === 'Picking up from there.'),
          30_000,
          'the next answer',
        );
        const assistant = sentMessages(llm, 1)
          .filter((entry) => entry.role === 'assistant')
          .at(-1);
        assert.match(String(assistant?.content), /^delta0 delta1 delta2 /);
      }
    });
  });
}
