/**
 * Platform dialect end to end: when an approval card cannot be posted, the owner is told how to stop the turn in the
 * platform's own words (Slack has no `/cancel`; its command is `/sandpiper cancel`).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import { SlackHarness } from '../fakes/fake-slack-harness.js';

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

describe('dialect: the card-failed notice names the platform’s cancel command', () => {
  let slack: SlackHarness;
  let discord: DiscordHarness;
  before(async () => {
    [slack, discord] = await Promise.all([SlackHarness.start(), DiscordHarness.start()]);
  });
  after(async () => {
    await Promise.allSettled([slack.close(), discord.close()]);
  });

  it('says `/sandpiper cancel` on Slack', async () => {
    const { user } = await slack.linkedUser('U0DIALECT', 'dia');
    slack.llm.enqueue(bash('call_d1', 'echo x'));
    // The card is the first message of the turn: every attempt to post it is refused.
    slack.fake.rateLimit('chat.postMessage', 3, 0.05);
    const { threadTs } = slack.mention(user, 'run it');
    const notice = await slack.fake.waitFor(
      () => slack.botReplies(threadTs).find((m) => /could not be shown/.test(m.text)),
      20_000,
      'notice',
    );
    assert.match(notice.text, /`\/sandpiper cancel`/);
    assert.doesNotMatch(notice.text, /Use \/cancel/);
  });

  it('says `/cancel` on Discord', async () => {
    const { user } = await discord.linkedUser('400000000000000071', 'dia');
    discord.llm.enqueue(bash('call_d2', 'echo x'));
    discord.fake.refuse('POST', /^\/channels\/\d+\/messages$/, 1);
    const { threadId } = await discord.mention(user, 'run it');
    const notice = await discord.fake.waitFor(
      () => discord.botMessages(threadId).find((m) => /could not be shown/.test(m.content)),
      20_000,
      'notice',
    );
    assert.match(notice.content, /`\/cancel`/);
  });
});
