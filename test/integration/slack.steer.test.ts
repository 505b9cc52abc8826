/**
 * Steer over bolt: `/sandpiper steer <text>` and the Steer button's modal (views.open) reach the running turn's next
 * model call; a stranger's steer is refused and reaches nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import type { FakeSlackUser } from '../fakes/fake-slack.js';

const STEERED = 'Steer sent: the running turn reads it before its next model call.';
const bash = (id: string) => [{ id, name: 'bash', arguments: JSON.stringify({ command: 'echo deploy' }) }];

describe('slack steer', () => {
  let h: SlackHarness;
  before(async () => {
    h = await SlackHarness.start();
  });
  after(async () => {
    await h.close();
  });

  const ephemeral = (user: FakeSlackUser, count: number) =>
    h.fake.waitFor(
      () => h.fake.state.ephemerals.filter((entry) => entry.user === user.id)[count],
      15_000,
      'private answer',
    );

  it('/sandpiper steer joins the running turn at its next model call; a stranger is refused', async () => {
    const { user } = await h.linkedUser('U0STEER', 'steerer');
    const { user: stranger } = await h.linkedUser('U0OTHER', 'other');
    h.llm.enqueue({ toolCalls: bash('call_s1') }, { text: 'Deployed to staging.' });
    const { threadTs } = h.mention(user, 'deploy the app');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    h.fake.userMessage(stranger, CHANNEL, '!steer use prod', threadTs);
    assert.equal((await ephemeral(stranger, 0)).text, 'Only the owner of this workstream can do that.');
    h.fake.slashCommand(user, CHANNEL, 'steer use staging, not prod');
    assert.equal((await ephemeral(user, 0)).text, STEERED);
    assert.equal(h.llm.requests.length, 1, 'the steer waits for the next model call');
    h.fake.click(card, h.button(card, 'Approve') ?? '', user);
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Deployed to staging.'),
      20_000,
      'final answer',
    );
    assert.equal(h.llm.requests.length, 2);
    const body = JSON.stringify(h.llm.requests[1]?.body);
    assert.match(body, /\[steer\] use staging, not prod/);
    assert.doesNotMatch(body, /use prod/, 'the stranger’s steer reached nothing');
  });

  it('the Steer button next to Stop opens a modal whose text joins the running turn', async () => {
    const { user } = await h.linkedUser('U0BUTTON', 'buttons');
    const start = h.llm.requests.length;
    const text = ['Checking ', 'the ', 'deploy ', 'script ', 'first.'];
    h.llm.enqueue({ text, toolCalls: bash('call_s2'), delayMs: 150 }, { text: 'Done with the tests.' });
    const { threadTs } = h.mention(user, 'deploy again');
    const live = await h.fake.waitFor(
      () => h.botReplies(threadTs).find((message) => h.button(message, 'Steer') !== undefined),
      15_000,
      'Steer button',
    );
    assert.ok(h.button(live, 'Stop'), 'Steer sits next to Stop');
    const steer = h.fake.state.buttons(live).find((button) => button.text?.text === 'Steer');
    assert.equal(
      steer?.value,
      threadTs === undefined ? undefined : `${CHANNEL}:${threadTs}`,
      'the button names its thread',
    );
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    // The form was opened while the text streamed; the live message lost its buttons since (the tool call sealed it).
    const { triggerId } = h.fake.click(live, steer?.action_id ?? '', user, steer?.value);
    await h.fake.waitFor(() => h.fake.state.views.find((view) => view.triggerId === triggerId), 15_000, 'steer modal');
    h.fake.submitView(triggerId, user, { steer: 'run the tests first' });
    assert.equal((await ephemeral(user, 0)).text, STEERED);
    h.fake.click(card, h.button(card, 'Approve') ?? '', user);
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Done with the tests.'),
      20_000,
      'final answer',
    );
    assert.match(JSON.stringify(h.llm.requests[start + 1]?.body), /\[steer\] run the tests first/);
  });
});
