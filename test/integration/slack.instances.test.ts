/**
 * Two real `sandpiper start` processes on one PostgreSQL database, each with its own Socket Mode connection (real bolt)
 * to the fake Slack, which spreads envelopes over the open connections as Slack does (ADR 0027): every question is
 * answered exactly once, an event one connection never acknowledges is retried to the other and answered once, and a
 * click is acknowledged on whichever connection got it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from '../fakes/fake-slack.js';
import { answerByTag, answerCounts } from '../helpers/echo-answers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';
import { testPostgresUrl } from '../helpers/test-stores.js';
import { createDatabaseOn, type ThrowawayDatabase } from '../helpers/throwaway-postgres.js';

const CHANNEL = 'C0001';
const QUESTIONS = 20;
const pgUrl = testPostgresUrl();

describe(
  'two gateways on one PostgreSQL share the Slack app',
  { skip: pgUrl === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
  () => {
    let database: ThrowawayDatabase | undefined;
    let slack: FakeSlack;
    let llm: FakeLlmServer;
    const gateways: GatewayProcesses[] = [];
    const pids: number[] = [];
    let alice: FakeSlackUser;
    let mallory: FakeSlackUser;

    before(async () => {
      database = await createDatabaseOn(pgUrl ?? '', 'sp_slack');
      const url = database.url;
      [slack, llm] = await Promise.all([FakeSlack.start(), startFakeLlmServer()]);
      answerByTag(llm);
      // One after the other, so connection 1 is the first gateway's and connection 2 the second's.
      for (let index = 0; index < 2; index += 1) {
        const gateway = new GatewayProcesses({ llm, slack, databaseUrl: url, gatewayToml: 'user_rate_limit = 100000' });
        gateways.push(gateway);
        pids.push((await gateway.start()).pid);
        await slack.waitFor(() => slack.connected === index + 1, 30_000, `connection ${index + 1}`);
      }
      await gateways[0]?.linkUser('slack', 'U0ALICE', 'alice');
      await gateways[0]?.linkUser('slack', 'U0MALLORY', 'mallory');
      alice = slack.user('U0ALICE', 'alice');
      mallory = slack.user('U0MALLORY', 'mallory');
    });
    after(async () => {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Already gone.
        }
      }
      await Promise.allSettled(gateways.map((gateway) => gateway.close()));
      await Promise.allSettled([slack?.close(), llm?.close()]);
      await database?.drop();
    });

    const answers = (threadTs: string): Map<string, number> =>
      answerCounts(
        slack.state
          .thread(CHANNEL, threadTs)
          .filter((m) => m.user === BOT_USER_ID && m.blocks.length === 0)
          .map((m) => m.text),
      );
    /** The warning and error lines (pino levels 40 and up) of a gateway's JSON log. */
    const warnings = (output: string): string[] => output.split('\n').filter((line) => /"level":(4|5|6)\d/.test(line));
    const mention = (user: FakeSlackUser, text: string): { message: FakeSlackMessage; envelopes: string[] } =>
      slack.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> ${text}`);

    /**
     * Waits until `connection`'s gateway has finished with everything it received in the channel: a new question sent
     * only to it is claimed after those (one ordered ledger lane per channel), so once it is answered they were handled.
     */
    async function settled(connection: number, tag: string): Promise<void> {
      slack.socket.steer = connection;
      const { message } = mention(alice, tag);
      slack.socket.steer = undefined;
      await slack.waitFor(() => answers(message.ts).get(tag), 30_000, `${tag} answered`);
    }

    it('opens one Socket Mode connection per instance, each from its own apps.connections.open URL', () => {
      assert.deepEqual(slack.socket.openConnections(), [1, 2]);
      const urls = slack.callsOf('apps.connections.open');
      assert.equal(urls.length, 2);
    });

    it(`answers ${QUESTIONS} new-thread mentions spread over both connections exactly once each`, async (t) => {
      slack.socket.distribute({ seed: 15 });
      const threads = Array.from({ length: QUESTIONS }, (_, index) => ({
        tag: `q-spread-${index}`,
        ...mention(alice, `q-spread-${index}`),
      }));
      slack.socket.distribute('round-robin');
      await slack.waitFor(
        () => threads.every(({ tag, message }) => answers(message.ts).get(tag)),
        60_000,
        'every mention answered',
      );
      await Promise.all([settled(1, 'q-spread-settle-1'), settled(2, 'q-spread-settle-2')]);
      for (const { tag, message } of threads) assert.equal(answers(message.ts).get(tag), 1, `${tag} answered once`);
      const envelopes = threads.flatMap((thread) => thread.envelopes);
      const spread = new Map<number, number>();
      for (const id of envelopes) {
        const [first] = slack.socket.connectionsOf(id);
        spread.set(first ?? 0, (spread.get(first ?? 0) ?? 0) + 1);
      }
      assert.ok(
        (spread.get(1) ?? 0) > 0 && (spread.get(2) ?? 0) > 0,
        `both connections got envelopes: ${JSON.stringify([...spread])}`,
      );
      assert.ok(
        envelopes.every((id) => slack.acks.has(id)),
        'every envelope was acknowledged',
      );
      // Diagnostics only: on a loaded machine an ack may miss the 3 s deadline, and Slack's retry is then answered by no one.
      t.diagnostic(
        `first deliveries by connection ${JSON.stringify([...spread])}, late acks ${envelopes.filter((id) => slack.socket.lateAcks.includes(id)).length}, retries ${slack.retried}`,
      );
    });

    it('an event the first connection never acknowledges is retried to the other and answered once', async () => {
      slack.socket.dropAcks(1);
      slack.socket.steer = 1;
      const { message, envelopes } = mention(alice, 'q-unacked');
      slack.socket.steer = undefined;
      try {
        await slack.waitFor(
          () => envelopes.every((id) => slack.socket.ackedOn.get(id) === 2),
          30_000,
          'the retries acknowledged on connection 2',
        );
      } finally {
        slack.socket.dropAcks(1, false);
      }
      for (const id of envelopes) {
        const sent = slack.socket.deliveries.filter((delivery) => delivery.envelopeId === id);
        assert.deepEqual(
          sent.map((d) => [d.connection, d.retryAttempt, d.retryReason]),
          [
            [1, 0, ''],
            [2, 1, 'timeout'],
          ],
          'sent to 1, retried to 2',
        );
      }
      await slack.waitFor(() => answers(message.ts).get('q-unacked'), 30_000, 'answer');
      await Promise.all([settled(1, 'q-unacked-settle-1'), settled(2, 'q-unacked-settle-2')]);
      assert.equal(answers(message.ts).get('q-unacked'), 1, 'the retry to the second instance answered nothing more');
    });

    it('a hung instance: its event is retried to the other instance, answered there, and not again when it wakes', async () => {
      process.kill(pids[0] ?? 0, 'SIGSTOP');
      let envelopes: string[] = [];
      let threadTs = '';
      try {
        slack.socket.steer = 1;
        const sent = mention(alice, 'q-hung');
        slack.socket.steer = undefined;
        envelopes = sent.envelopes;
        threadTs = sent.message.ts;
        await slack.waitFor(() => answers(threadTs).get('q-hung'), 30_000, 'the answer from the second instance');
        assert.ok(
          envelopes.every((id) => slack.socket.ackedOn.get(id) === 2),
          'the retries were acknowledged on connection 2',
        );
      } finally {
        process.kill(pids[0] ?? 0, 'SIGCONT');
      }
      // Awake, it reads the envelopes that waited in its socket and acknowledges them, too late to count.
      const fromFirst = (id: string): boolean =>
        slack.socket.ackLog.some((ack) => ack.envelopeId === id && ack.connection !== 2 && ack.late);
      await slack.waitFor(
        () => envelopes.every(fromFirst) && slack.connected === 2,
        30_000,
        'the first instance to catch up',
      );
      const first = slack.socket.openConnections().find((id) => id !== 2) ?? 1;
      await Promise.all([settled(first, 'q-hung-settle-1'), settled(2, 'q-hung-settle-2')]);
      assert.equal(answers(threadTs).get('q-hung'), 1, 'the woken instance answered nothing more');
    });

    it('acknowledges an approval card click on whichever connection got it', async () => {
      llm.enqueue(
        { toolCalls: [{ id: 'call_two', name: 'bash', arguments: JSON.stringify({ command: 'echo two-instances' }) }] },
        { text: 'answer to q-approval' },
      );
      slack.socket.steer = 1;
      const { message } = mention(alice, 'q-approval run echo');
      slack.socket.steer = undefined;
      const card = await slack.waitFor(
        () =>
          slack.state.thread(CHANNEL, message.ts).find((m) => /Tool Approval Required/.test(JSON.stringify(m.blocks))),
        30_000,
        'approval card',
      );
      const approve = slack.state.buttons(card).find((b) => b.text?.text === 'Approve')?.action_id ?? '';

      // A stranger's click reaches the other instance: acknowledged there in time and refused privately.
      slack.socket.steer = 2;
      const stranger = slack.click(card, approve, mallory);
      await slack.waitFor(() => slack.state.privateTo(mallory.id).at(-1), 30_000, 'the refusal');
      assert.match(slack.state.privateTo(mallory.id).at(-1) ?? '', /Only the owner/);
      // The owner's click reaches the other instance too: acknowledged there, handed to the holder (ADR 0021).
      slack.socket.steer = 2;
      const owner = slack.click(card, approve, alice);
      slack.socket.steer = undefined;
      await slack.waitFor(() => answers(message.ts).get('q-approval'), 30_000, 'the answer after the approval');
      for (const [click, connection] of [
        [stranger, 2],
        [owner, 2],
      ] as const) {
        assert.deepEqual(slack.socket.connectionsOf(click.envelopeId), [connection]);
        assert.equal(
          slack.socket.ackedOn.get(click.envelopeId),
          connection,
          'acknowledged on the connection that got it',
        );
        assert.ok(
          !slack.socket.expired.includes(click.envelopeId) && !slack.socket.lateAcks.includes(click.envelopeId),
          'acknowledged within 3 s',
        );
      }
      assert.equal(answers(message.ts).get('q-approval'), 1);
      assert.equal(
        llm.requests.filter((request) => JSON.stringify(request.body).includes('two-instances')).length,
        1,
        'the approved call was answered to the model once',
      );
    });

    it('a refresh_requested on one connection: that instance reconnects with a new URL, the other keeps its own', async () => {
      const refreshed = slack.socket.openConnections().find((id) => id !== 2) ?? 1;
      const opened = slack.connections;
      const urls = slack.callsOf('apps.connections.open').length;
      slack.requestReconnect(refreshed);
      await slack.waitFor(() => slack.connected === 2 && slack.connections === opened + 1, 30_000, 'the reconnect');
      assert.equal(slack.callsOf('apps.connections.open').length, urls + 1, 'one new URL, for the refreshed instance');
      assert.deepEqual(slack.socket.openConnections(), [2, opened + 1]);
      await Promise.all([settled(2, 'q-refresh-kept'), settled(opened + 1, 'q-refresh-new')]);
    });

    it('a graceful stop of one instance: events during its drain go to the other, its interrupted turn is resumed there, each answered once', async (t) => {
      // A slow answer keeps the first instance draining (its renderer finishes the message) for a while after SIGTERM.
      llm.enqueue({ text: Array.from({ length: 30 }, (_, index) => `slow${index} `), delayMs: 150 });
      slack.socket.steer = 1;
      const { message: slow } = mention(alice, 'q-slow');
      await slack.waitFor(
        () => slack.state.thread(CHANNEL, slow.ts).some((m) => m.user === BOT_USER_ID && m.text.includes('slow1 ')),
        30_000,
        'the slow answer',
      );
      const first = slack.socket.openConnections().find((id) => id !== 2) ?? 1;
      // The renderer's in-flight edit is slow to come back, so the drain lasts (up to its 3 s grace).
      slack.delayNext('chat.update', 2_500, 2);
      const stopped = gateways[0]?.stop();
      const threads: Array<{ tag: string; ts: string }> = [];
      // Mentions steered at the stopping instance for as long as its connection is open (then Slack picks the other).
      while (slack.socket.openConnections().includes(first) && threads.length < 40) {
        slack.socket.steer = first;
        const tag = `q-draining-${threads.length}`;
        threads.push({ tag, ts: mention(alice, tag).message.ts });
        slack.socket.steer = undefined;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await stopped, 0);
      t.diagnostic(`${threads.length} mentions sent at the stopping instance while its connection was open`);
      // A mention the instance took before the SIGTERM reached it is interrupted by the stop and handed over with its
      // lease at once: the other instance resumes it ("answering again below"), still one answer.
      const wasResumed = (ts: string): boolean =>
        slack.state.thread(CHANNEL, ts).some((m) => m.text.includes('Interrupted by a restart'));
      // The stop finishes handing over what it took (ADR 0013), so even a resumed turn answers its own question.
      const answered = (tag: string, ts: string): boolean => answers(ts).get(tag) === 1;
      await slack
        .waitFor(() => threads.every(({ tag, ts }) => answered(tag, ts)), 60_000, 'every mention answered')
        .catch((error: unknown) => {
          // What the two instances said about it (warnings and errors), and what each mention got, for the CI log.
          for (const { tag, ts } of threads)
            t.diagnostic(`${tag} (${ts}): answers ${JSON.stringify([...answers(ts)])}`);
          for (const [index, gateway] of gateways.entries())
            for (const line of warnings(gateway.output())) t.diagnostic(`gateway ${index + 1}: ${line}`);
          throw error;
        });
      const resumed = threads.filter(({ ts }) => wasResumed(ts));
      t.diagnostic(`${resumed.length} of them taken before the stop and resumed by the other instance`);
      await settled(2, 'q-draining-settle');
      for (const { tag, ts } of threads)
        assert.ok(answered(tag, ts) && (answers(ts).get(tag) ?? 0) <= 1, `${tag} answered once`);
      // The slow answer is whole once: finished within the drain, or (the stop interrupted it) taken over with its lease
      // at once, without waiting for it to expire, and resumed by the other instance after the note.
      const bot = (): FakeSlackMessage[] => slack.state.thread(CHANNEL, slow.ts).filter((m) => m.user === BOT_USER_ID);
      const finished = (): boolean => bot().some((m) => m.text.trim().endsWith('slow29'));
      await slack.waitFor(
        () => finished() || answers(slow.ts).get('q-slow'),
        30_000,
        'the slow answer finished or resumed',
      );
      const interrupted = bot().some((m) => m.text.includes('Interrupted by a restart; answering again below'));
      t.diagnostic(
        `the slow answer was ${interrupted ? 'interrupted by the stop and resumed by the other instance' : 'finished within the drain'}`,
      );
      if (interrupted) assert.equal(answers(slow.ts).get('q-slow'), 1);
      else
        assert.deepEqual(
          [bot().filter((m) => m.text.includes('slow0 ')).length, answers(slow.ts).get('q-slow')],
          [1, undefined],
          'the finished slow answer, once',
        );
      assert.deepEqual(slack.socket.openConnections(), [2]);
    });
  },
);
