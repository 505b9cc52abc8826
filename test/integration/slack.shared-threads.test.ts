/** Someone else's Slack thread, over bolt: a stranger's post (one ephemeral hint), `!status`, click; an approver group member decides. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NOT_YOURS } from '../../src/gateway/commands.js';
import { NOT_OWNER_HINT } from '../../src/gateway/link-hints.js';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import type { FakeSlackUser } from '../fakes/fake-slack.js';

describe('a Slack thread seen by people other than its owner', () => {
  let h: SlackHarness;
  let alice: FakeSlackUser;
  let mallory: FakeSlackUser;
  let carol: FakeSlackUser;
  before(async () => {
    h = await SlackHarness.start({ flags: { 'slack.approver_groups': ['S0APPROVERS'] } });
    h.fake.state.userGroups.set('S0APPROVERS', ['U0CAROL']);
    alice = (await h.linkedUser('U0ALICE', 'alice')).user;
    mallory = (await h.linkedUser('U0MALLORY', 'mallory')).user;
    carol = (await h.linkedUser('U0CAROL', 'carol')).user;
  });
  after(() => h.close());

  const privateTo = (user: FakeSlackUser): string[] => h.fake.state.privateTo(user.id);

  it('hints a stranger once, shows them no status, refuses their click, and lets an approver decide', async () => {
    h.llm.enqueue(
      {
        toolCalls: [
          {
            id: 'call_s1',
            name: 'bash',
            arguments: JSON.stringify({ command: 'export API_TOKEN=abcd1234secret; echo ok' }),
          },
        ],
      },
      { text: 'Done after the decision.' },
    );
    const { threadTs } = h.mention(alice, 'run it');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    assert.doesNotMatch(JSON.stringify(card.blocks), /abcd1234secret/, 'the secret is masked on the card');
    const requests = h.llm.requests.length;

    h.fake.userMessage(mallory, CHANNEL, 'approve it yourself', threadTs);
    h.fake.userMessage(mallory, CHANNEL, 'hello?', threadTs);
    await h.fake.waitFor(() => privateTo(mallory).length > 0, 15_000, 'hint');
    h.fake.userMessage(mallory, CHANNEL, '!status', threadTs);
    await h.fake.waitFor(() => privateTo(mallory).length > 1, 15_000, 'status reply');
    assert.deepEqual(privateTo(mallory), [NOT_OWNER_HINT, NOT_YOURS], 'one hint, then a status with nothing in it');

    h.fake.click(card, h.button(card, 'Approve') ?? '', mallory);
    await h.fake.waitFor(() => privateTo(mallory).length > 2, 15_000, 'refusal');
    assert.match(privateTo(mallory).at(-1) ?? '', /Only the owner/);
    assert.equal(h.llm.requests.length, requests, 'nothing reached the model');

    h.fake.click(card, h.button(card, 'Approve') ?? '', carol);
    assert.equal(await h.fake.waitFor(() => privateTo(carol).at(-1), 15_000, 'approver reply'), 'Approved.');
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'Done after the decision.'),
      20_000,
      'answer',
    );
    assert.match(JSON.stringify(card.blocks), /Approved by carol/);
    assert.equal(privateTo(alice).length, 0);
  });
});
