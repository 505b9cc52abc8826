/**
 * The fake Slack's HTTP delivery checked against bolt's own `HTTPReceiver` (not ours): what the fake signs, bolt accepts
 * and dispatches (an event, a slash command, a button click); what it forges, bolt refuses with 401.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { FakeSlack, type FakeSlackUser } from '../fakes/fake-slack.js';
import { FakeSlackHttp } from '../fakes/fake-slack-http.js';

const SECRET = 'bolt-receiver-secret';

describe("the fake's signed HTTP delivery against bolt's HTTPReceiver", () => {
  let fake: FakeSlack;
  let app: App;
  let http: FakeSlackHttp;
  let user: FakeSlackUser;
  const seen: string[] = [];
  before(async () => {
    fake = await FakeSlack.start();
    user = fake.user('U0BOLT', 'bolt');
    const receiver = new HTTPReceiver({ signingSecret: SECRET, endpoints: '/slack/events', logLevel: LogLevel.ERROR });
    app = new App({
      token: fake.botToken,
      receiver,
      tokenVerificationEnabled: false,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: fake.apiUrl },
    });
    app.event('message', async ({ event }) => {
      seen.push(`message:${String((event as { text?: string }).text)}`);
    });
    app.command('/sandpiper', async ({ command, ack }) => {
      await ack();
      seen.push(`command:${command.text}`);
    });
    app.action(/.*/, async ({ ack, action }) => {
      await ack();
      seen.push(`action:${(action as { action_id?: string }).action_id ?? ''}`);
    });
    const server = (await app.start(0)) as Server;
    http = new FakeSlackHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`, SECRET);
  });
  after(async () => {
    await app.stop();
    await fake.close();
  });

  it('bolt accepts and dispatches what the fake signs: an event, a slash command, a click', async () => {
    const message = fake.state.addMessage({ channel: 'C0001', user: user.id, text: 'signed hello' });
    const [event] = fake.state.messageEvents(message, 'channel');
    assert.equal((await http.deliver('events_api', event ?? {})).status, 200);
    assert.equal(
      (await http.deliver('slash_commands', fake.state.commandPayload('/sandpiper', 'ask me', 'C0001', user))).status,
      200,
    );
    const card = fake.state.addMessage({
      channel: 'C0001',
      user: 'U0BOT',
      text: 'card',
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'button', action_id: 'sp:x', text: { type: 'plain_text', text: 'X' }, value: 'v' }],
        },
      ],
    });
    assert.equal((await http.deliver('interactive', fake.state.blockActionsPayload(card, 'sp:x', user))).status, 200);
    await fake.waitFor(() => seen.length >= 3 || undefined, 5_000, 'bolt listeners');
    assert.deepEqual(seen.sort(), ['action:sp:x', 'command:ask me', 'message:signed hello']);
  });

  it('bolt refuses what the fake forges with 401', async () => {
    const payload = { type: 'event_callback', event_id: 'Ev1', event: { type: 'message', text: 'forged' } };
    const now = Math.floor(Date.now() / 1000);
    for (const options of [
      { secret: 'wrong' },
      { signature: null },
      { timestampSec: now - 600 },
      { signature: 'v0=00' },
    ]) {
      assert.equal((await http.deliver('events_api', payload, options)).status, 401, JSON.stringify(options));
    }
    assert.equal(seen.filter((entry) => entry.includes('forged')).length, 0);
  });
});
