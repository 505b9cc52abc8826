/**
 * Fault test (bolt ↔ fake Slack): dropped sockets (events written meanwhile are lost by Slack; catch-up finds them)
 * and `disconnect` refreshes with Slack's retries on (retried events overlap with catch-up), while a user posts:
 * 3 of each in CI, 20 with SANDPIPER_TEST_LONG=1. Every question must be answered exactly once.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';
import { answerByTag, answerCounts, tally } from '../helpers/echo-answers.js';
import { testRounds } from '../helpers/test-rounds.js';

const ROUNDS = testRounds(3, 20);
type Fault = 'drop' | 'refresh';

describe('slack faults: socket drops and refreshes while users post', () => {
  let h: SlackHarness;
  let user: FakeSlackUser;
  before(async () => {
    // One user writes 160 questions in a few minutes: lift the per-user rate limit.
    // Socket Mode waits its ping timeout (5 s by default) before each reconnect: 1 s keeps the rounds short.
    h = await SlackHarness.start({
      flags: { 'slack.channel_ids': [CHANNEL], 'gateway.user_rate_limit': 100_000 },
      adapterOptions: { clientPingTimeoutMs: 1_000 },
    });
    answerByTag(h.llm);
    user = (await h.linkedUser('U0FAY', 'fay')).user;
  });
  after(async () => {
    await h.close();
  });

  const allAnswers = (): Map<string, number> =>
    answerCounts(
      h.fake.state.messages.filter((m) => m.user === BOT_USER_ID && m.blocks.length === 0).map((m) => m.text),
    );

  async function inject(fault: Fault, write: () => void): Promise<void> {
    const connections = h.fake.connections;
    if (fault === 'drop') h.fake.dropSocket();
    else h.fake.requestReconnect();
    write();
    await h.fake.waitFor(
      () => h.fake.connections > connections && h.fake.connected === 1,
      20_000,
      `reconnect after ${fault}`,
    );
  }

  async function rounds(t: TestContext, fault: Fault): Promise<void> {
    const tags: string[] = [];
    const lost = h.fake.lost;
    const retried = h.fake.retried;
    h.fake.retries = fault === 'refresh';
    for (let round = 0; round < ROUNDS; round += 1) {
      const tag = (what: string): string => {
        const value = `q-${fault}-${round}-${what}`;
        tags.push(value);
        return value;
      };
      const { threadTs } = h.mention(user, tag('mention'));
      await h.fake.waitFor(() => allAnswers().get(`q-${fault}-${round}-mention`), 20_000, 'mention answered');
      await inject(fault, () => {
        h.fake.userMessage(user, CHANNEL, tag('during'), threadTs);
        h.fake.userMessage(user, CHANNEL, `<@${BOT_USER_ID}> ${tag('mention-during')}`);
      });
      h.fake.userMessage(user, CHANNEL, tag('after'), threadTs);
    }
    await h.fake
      .waitFor(() => tally(tags, allAnswers()).lost.length === 0, 90_000, `every ${fault} question answered`)
      .catch(() => undefined);
    const { lost: unanswered, duplicated } = tally(tags, allAnswers());
    t.diagnostic(
      `${fault}: ${ROUNDS} faults, ${tags.length} questions, lost ${unanswered.length}, answered twice ${duplicated.length}, events Slack lost ${h.fake.lost - lost}, events Slack retried ${h.fake.retried - retried}`,
    );
    assert.deepEqual(unanswered, [], `${fault}: every question answered`);
    assert.deepEqual(duplicated, [], `${fault}: no question answered twice`);
  }

  it('dropped sockets (events lost by Slack, found by catch-up)', (t) => rounds(t, 'drop'));
  it('disconnect refreshes with retries (retries overlap with catch-up)', (t) => rounds(t, 'refresh'));
});
