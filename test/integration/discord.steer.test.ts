/**
 * Steer over discord.js: the Steer button next to Stop opens a form; its text joins the running turn at the next model
 * call (in the request body the model receives); `/steer` is registered with a required text.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';

describe('discord steer', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start();
  });
  after(async () => {
    await h.close();
  });

  const replyOf = (id: string) =>
    h.fake.waitFor(() => h.fake.state.interactions.get(id)?.reply, 15_000, 'interaction reply');

  it('Steer → form → submit: the running turn’s next model request carries the steer', async () => {
    const { user } = await h.linkedUser('400000000000000091', 'sue');
    // The text streams slowly enough to see the live message with its buttons; then the turn waits on an approval, so
    // the steer is submitted while the turn runs and before its next model call.
    const text = ['Checking ', 'the ', 'deploy ', 'script ', 'first.'];
    const bash = [{ id: 'call_s1', name: 'bash', arguments: JSON.stringify({ command: 'echo deploy' }) }];
    h.llm.enqueue({ text, toolCalls: bash, delayMs: 150 }, { text: 'Deployed to staging.' });
    const { threadId } = await h.mention(user, 'deploy the app');
    const live = await h.fake.waitFor(
      () => h.botMessages(threadId).find((message) => h.button(message, 'Steer') !== undefined),
      15_000,
      'Steer button',
    );
    assert.ok(h.button(live, 'Stop'), 'Steer sits next to Stop');
    const steerId = h.button(live, 'Steer') ?? '';
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'approval card');
    const click = h.fake.state.clickButton(live.id, steerId, user);
    const modal = await h.fake.waitFor(() => h.fake.state.interactions.get(click.id)?.modal, 15_000, 'steer form');
    const submit = h.fake.state.submitModal(String(modal.custom_id), threadId, user, {
      steer: 'use staging, not prod',
    });
    assert.equal(await replyOf(submit.id), 'Steer sent: the running turn reads it before its next model call.');
    assert.equal(h.llm.requests.length, 1, 'the steer waits for the next model call');
    h.fake.state.clickButton(card.id, h.button(card, 'Approve') ?? '', user);
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Deployed to staging.'),
      20_000,
      'final answer',
    );
    assert.equal(h.llm.requests.length, 2);
    assert.match(JSON.stringify(h.llm.requests[1]?.body), /\[steer\] use staging, not prod/);
    assert.deepEqual(h.fake.invalidBodies, [], 'the form and the buttons match the API description');
  });

  it('registers /steer with a required text', async () => {
    const commands = h.fake.state.commands as { name: string; options?: { name: string; required?: boolean }[] }[];
    const steer = commands.find((command) => command.name === 'steer');
    assert.deepEqual(
      steer?.options?.map((option) => [option.name, option.required]),
      [['text', true]],
    );
  });
});
