/**
 * Per-thread order across instances (docs/design/cluster.md): two real `sandpiper start` processes on one PostgreSQL,
 * each with its own Socket Mode connection. Two messages of one thread go to the two instances in quick succession
 * while the second instance runs the thread; the first one's instance is slow between its claim and handing the
 * message over (its file downloads slowly), so the second, claimed at once by the holder, would reach the conversation
 * first. It waits for the earlier one: the model
 * sees the user messages in Slack `ts` order, and each is answered once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { createKnex } from '../../src/storage/index.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackUser } from '../fakes/fake-slack.js';
import { answerByTag, answerCounts } from '../helpers/echo-answers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';
import { testPostgresUrl } from '../helpers/test-stores.js';
import { waitFor } from '../helpers/wait-for.js';
import { createDatabaseOn, type ThrowawayDatabase } from '../helpers/throwaway-postgres.js';

const CHANNEL = 'C0001';
const pgUrl = testPostgresUrl();

type ChatMessage = { role?: string; content?: unknown };

/** The user messages of a chat request, as text. */
function userTexts(body: unknown): string[] {
  const messages = (body as { messages?: ChatMessage[] } | undefined)?.messages ?? [];
  return messages
    .filter((message) => message.role === 'user')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)));
}

describe(
  'messages of one Slack thread claimed by two instances',
  { skip: pgUrl === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
  () => {
    let database: ThrowawayDatabase | undefined;
    let db: Knex | undefined;
    let slack: FakeSlack;
    let llm: FakeLlmServer;
    const gateways: GatewayProcesses[] = [];
    let alice: FakeSlackUser;

    before(async () => {
      database = await createDatabaseOn(pgUrl ?? '', 'sp_order');
      [slack, llm] = await Promise.all([FakeSlack.start(), startFakeLlmServer()]);
      answerByTag(llm);
      for (let index = 0; index < 2; index += 1) {
        const gateway = new GatewayProcesses({
          llm,
          slack,
          databaseUrl: database.url,
          gatewayToml: 'user_rate_limit = 100000',
          // The default cluster timing (heartbeat 5 s, lease 15 s): nothing dies here, and the holder waits for the
          // earlier message for up to lease_ttl_s while its claimer beats, so a short lease would only add a way for
          // that wait to end early on a loaded machine.
        });
        gateways.push(gateway);
        await gateway.start();
        await slack.waitFor(() => slack.connected === index + 1, 30_000, `connection ${index + 1}`);
      }
      await gateways[0]?.linkUser('slack', 'U0ALICE', 'alice');
      alice = slack.user('U0ALICE', 'alice');
      db = createKnex(database.url);
    });
    after(async () => {
      await db?.destroy();
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

    it('the model sees them in ts order although the later one was claimed first, and answers each once', async () => {
      // The second instance runs the thread (a slow answer keeps it busy there, so it holds the workstream's lease).
      llm.enqueue({ text: Array.from({ length: 40 }, (_, index) => `slow${index} `), delayMs: 100 });
      slack.socket.steer = 2;
      const root = slack.userMessage(alice, CHANNEL, `<@${BOT_USER_ID}> q-root`).message;
      slack.socket.steer = 1;
      await slack.waitFor(
        () => slack.state.thread(CHANNEL, root.ts).some((m) => m.user === BOT_USER_ID && m.text.includes('slow1 ')),
        30_000,
        'the slow answer on the second instance',
      );

      // The first message carries a file its instance downloads before it stores (or hands over) the message.
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const bytes = Buffer.from('slow file');
      const first = slack.userMessageWithFiles(
        alice,
        CHANNEL,
        'q-first with a file',
        [{ name: 'notes.txt', contentType: 'text/plain', bytes, held }],
        root.ts,
      ).message;
      await slack.waitFor(() => slack.files.requests.length > 0, 30_000, 'the first instance downloading the file');

      // The second message goes to the other instance, which claims it at once.
      slack.socket.steer = 2;
      const second = slack.userMessage(alice, CHANNEL, 'q-second', root.ts).message;
      slack.socket.steer = undefined;
      const claimed = async (): Promise<boolean> =>
        (await db?.('inbound_events').where({ platform: 'slack', message_id: second.ts }).first()) !== undefined;
      await waitFor(claimed, 'the second message claimed', 30_000);
      release();

      await slack.waitFor(
        () => answers(root.ts).get('q-first') && answers(root.ts).get('q-second'),
        60_000,
        'both answered',
      );
      assert.ok(first.ts < second.ts);
      const asked = llm.requests.map((request) => userTexts(request.body)).filter((texts) => texts.length > 1);
      const firstSeen = asked.findIndex((texts) => texts.some((text) => /q-first|q-second/.test(text)));
      assert.ok(
        asked[firstSeen]?.some((text) => text.includes('q-first')) === true,
        `the first model call of the two asks q-first: ${JSON.stringify(asked[firstSeen])}`,
      );
      for (const texts of asked) {
        const [at1, at2] = [
          texts.findIndex((t) => t.includes('q-first')),
          texts.findIndex((t) => t.includes('q-second')),
        ];
        if (at2 >= 0) assert.ok(at1 >= 0 && at1 < at2, `q-first before q-second: ${JSON.stringify(texts)}`);
      }
      assert.deepEqual([answers(root.ts).get('q-first'), answers(root.ts).get('q-second')], [1, 1], 'each once');
    });
  },
);
