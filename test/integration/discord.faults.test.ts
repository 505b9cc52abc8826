/**
 * Fault test (discord.js ↔ fake Discord): disconnects of each kind (4 in CI, 20 with SANDPIPER_TEST_LONG=1) while a user posts — a dropped socket
 * (RESUME replays), op 7 RECONNECT (RESUME replays) and op 9 INVALID SESSION (a new session: the events are lost
 * by the platform and only catch-up finds them). Every question must be answered exactly once.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';
import { answerByTag, answerCounts, tally } from '../helpers/echo-answers.js';
import { testRounds } from '../helpers/test-rounds.js';

const ROUNDS = testRounds(4, 20);
type Fault = 'drop' | 'op7' | 'op9';

describe('discord faults: drops, op 7, op 9 while users post', () => {
  let h: DiscordHarness;
  let user: FakeUser;
  before(async () => {
    // One user writes 240 questions in a few minutes: lift the per-user rate limit.
    h = await DiscordHarness.start({
      adapterOptions: { identifyThrottle: false },
      flags: { 'gateway.user_rate_limit': 100_000 },
    });
    answerByTag(h.llm);
    user = (await h.linkedUser('400000000000000071', 'fay')).user;
  });
  after(async () => {
    await h.close();
  });

  const allAnswers = (): Map<string, number> =>
    answerCounts(
      [...h.fake.state.messages.values()]
        .filter((m) => m.author.id === h.fake.state.bot.id && m.embeds.length === 0)
        .map((m) => m.content),
    );

  /** Injects the fault and resolves once the bot is connected again the way that fault reconnects. */
  async function inject(fault: Fault, write: () => void): Promise<void> {
    const { gateway } = h.fake;
    const resumes = gateway.resumes;
    const identifies = gateway.identifies;
    if (fault === 'drop') gateway.drop(4000);
    if (fault === 'op7') gateway.reconnect();
    if (fault === 'op9') gateway.invalidate();
    write();
    const back = fault === 'op9' ? () => gateway.identifies > identifies : () => gateway.resumes > resumes;
    await h.fake.waitFor(() => back() && gateway.connected === 1, 20_000, `reconnect after ${fault}`);
  }

  async function rounds(t: TestContext, fault: Fault): Promise<void> {
    const tags: string[] = [];
    const lostByPlatform = h.fake.gateway.lost;
    for (let round = 0; round < ROUNDS; round += 1) {
      const tag = (what: string): string => {
        const value = `q-${fault}-${round}-${what}`;
        tags.push(value);
        return value;
      };
      const { threadId } = await h.mention(user, tag('mention'));
      await inject(fault, () => {
        h.fake.state.injectMessage(threadId, user, tag('during'));
        h.fake.state.injectMessage(CHANNEL_ID, user, tag('mention-during'), true);
      });
      h.fake.state.injectMessage(threadId, user, tag('after'));
    }
    await h.fake
      .waitFor(() => tally(tags, allAnswers()).lost.length === 0, 90_000, `every ${fault} question answered`)
      .catch(() => undefined);
    const { lost, duplicated } = tally(tags, allAnswers());
    t.diagnostic(
      `${fault}: ${ROUNDS} faults, ${tags.length} questions, lost ${lost.length}, answered twice ${duplicated.length}, events the platform lost ${h.fake.gateway.lost - lostByPlatform}`,
    );
    assert.deepEqual(lost, [], `${fault}: every question answered`);
    assert.deepEqual(duplicated, [], `${fault}: no question answered twice`);
  }

  it('a dropped socket (RESUME replays)', (t) => rounds(t, 'drop'));
  it('op 7 reconnect (RESUME replays)', (t) => rounds(t, 'op7'));
  it('op 9 invalid session (a new session; catch-up recovers)', async (t) => {
    await rounds(t, 'op9');
    assert.ok(h.fake.gateway.lost > 0, 'the platform really lost events (catch-up had work to do)');
  });

  it('starts nothing twice in the end: every reply went through the OpenAPI check', () => {
    const counts = allAnswers();
    assert.equal([...counts.values()].filter((n) => n > 1).length, 0);
    assert.deepEqual(h.fake.invalidBodies, []);
  });
});
