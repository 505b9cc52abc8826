/**
 * Two real `sandpiper start` processes on one PostgreSQL database with slack.mode = "http", behind a "load balancer"
 * (the fake picks the instance per request): questions spread over both are answered once each, and Slack's retry of
 * an event (`X-Slack-Retry-Num`, same event_id, signed anew) sent to the other instance is handled once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackUser } from '../fakes/fake-slack.js';
import { FakeSlackHttp } from '../fakes/fake-slack-http.js';
import { answerByTag, answerCounts } from '../helpers/echo-answers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';
import { testPostgresUrl } from '../helpers/test-stores.js';
import { createDatabaseOn, type ThrowawayDatabase } from '../helpers/throwaway-postgres.js';

const CHANNEL = 'C0001';
const SECRET = 'instances-signing-secret';
const QUESTIONS = 12;
const pgUrl = testPostgresUrl();

describe(
  'two gateways over HTTP on one PostgreSQL',
  { skip: pgUrl === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
  () => {
    let database: ThrowawayDatabase | undefined;
    let slack: FakeSlack;
    let llm: FakeLlmServer;
    const gateways: GatewayProcesses[] = [];
    const instances: FakeSlackHttp[] = [];
    let alice: FakeSlackUser;

    before(async () => {
      database = await createDatabaseOn(pgUrl ?? '', 'sp_slack_http');
      [slack, llm] = await Promise.all([FakeSlack.start(), startFakeLlmServer()]);
      answerByTag(llm);
      for (let index = 0; index < 2; index += 1) {
        const gateway = new GatewayProcesses({
          llm,
          slack,
          databaseUrl: database.url,
          gatewayToml: 'user_rate_limit = 100000',
          slackToml: `mode = "http"\nsigning_secret = "${SECRET}"`,
        });
        gateways.push(gateway);
        const { url } = await gateway.start();
        instances.push(new FakeSlackHttp(`${url}/slack/events`, SECRET));
      }
      await gateways[0]?.linkUser('slack', 'U0ALICE', 'alice');
      alice = slack.user('U0ALICE', 'alice');
    });
    after(async () => {
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
    /** A mention's events (message and app_mention), not yet delivered. */
    const mention = (tag: string): { ts: string; events: Record<string, unknown>[] } => {
      const message = slack.state.addMessage({ channel: CHANNEL, user: alice.id, text: `<@${BOT_USER_ID}> ${tag}` });
      return { ts: message.ts, events: slack.state.messageEvents(message, 'channel') };
    };

    it('never delivers to an instance without the right signature', async () => {
      for (const instance of instances) {
        const { events } = mention('q-forged');
        assert.equal((await instance.deliver('events_api', events[0] ?? {}, { secret: 'wrong' })).status, 401);
      }
    });

    it(`answers ${QUESTIONS} mentions whose twin events land on different instances exactly once each`, async () => {
      const threads = Array.from({ length: QUESTIONS }, (_, index) => ({
        tag: `q-lb-${index}`,
        ...mention(`q-lb-${index}`),
      }));
      await Promise.all(
        threads.flatMap(({ events }, index) =>
          events.map((event, twin) => instances[(index + twin) % 2]?.deliver('events_api', event)),
        ),
      );
      await slack.waitFor(() => threads.every(({ tag, ts }) => answers(ts).get(tag)), 60_000, 'every mention answered');
      for (const { tag, ts } of threads) assert.equal(answers(ts).get(tag), 1, `${tag} answered once`);
    });

    it("Slack's retry of an event to the other instance is acknowledged and handled once", async () => {
      const { ts, events } = mention('q-retried');
      const [event] = events;
      assert.equal((await instances[0]?.deliver('events_api', event ?? {}))?.status, 200);
      for (let retryNum = 1; retryNum <= 3; retryNum += 1) {
        assert.equal(
          (await instances[retryNum % 2]?.deliver('events_api', event ?? {}, { retryNum }))?.status,
          200,
          `retry ${retryNum}`,
        );
      }
      await slack.waitFor(() => answers(ts).get('q-retried'), 30_000, 'answer');
      // A later question in the channel is claimed after the retries (one ordered lane per channel): once it is answered,
      // every retry has been handled.
      for (const [index, instance] of instances.entries()) {
        const later = mention(`q-after-${index}`);
        await instance.deliver('events_api', later.events[0] ?? {});
        await slack.waitFor(() => answers(later.ts).get(`q-after-${index}`), 30_000, `q-after-${index} answered`);
      }
      assert.equal(answers(ts).get('q-retried'), 1, 'answered once');
    });
  },
);
