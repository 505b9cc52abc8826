/**
 * Installs in many workspaces (slack.client_id, HTTP mode) through bolt and @slack/oauth against the fake Slack: two
 * workspaces install through the OAuth v2 flow (install page → Slack's authorize page → redirect), each is answered
 * with its own token (the fake refuses a token of another workspace), a forged, foreign or replayed `state` gets 400
 * and stores nothing, tokens are encrypted in the database file, and an uninstall (or revoked token) removes the
 * install so that workspace's later events are acknowledged and ignored. A file shared in a workspace is downloaded
 * with that workspace's token.
 */
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import type { FakeSlackUser } from '../fakes/fake-slack.js';
import type { FakeSlackHttp } from '../fakes/fake-slack-http.js';
import { waitFor } from '../helpers/wait-for.js';
import { checkSlack } from '../../src/doctor/platform-checks.js';

const SECOND = { team: 'T0002', channel: 'C0002', bot: 'U0BOT2' };

interface Flow {
  /** The final redirect back to the gateway, with the browser's state cookie. */
  redirect: string;
  cookie: string;
  authorize: URL;
}

describe('slack installs in many workspaces (OAuth v2, one token per workspace)', () => {
  let h: SlackHarness;
  let http: FakeSlackHttp;
  let alice: FakeSlackUser;
  let bob: FakeSlackUser;
  before(async () => {
    h = await SlackHarness.start({ installs: true });
    http = h.fake.http as FakeSlackHttp;
    h.fake.state.addTeam(SECOND.team, 'second', SECOND.bot, 'B0002', [SECOND.channel]);
    alice = (await h.linkedUser('U0ALICE', 'alice')).user;
    bob = (await h.linkedUser('U0BOB', 'bob')).user;
  });
  after(async () => {
    await h.close();
  });

  /** The browser's way up to Slack's redirect back: the install page, then Slack's authorize page (approved at once). */
  const startInstall = async (teamId: string): Promise<Flow> => {
    h.fake.oauth.nextTeam = teamId;
    const install = await fetch(`${h.serverUrl}/slack/install`, { redirect: 'manual' });
    assert.equal(install.status, 302, 'the install page redirects to Slack');
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const slack = await fetch(install.headers.get('location') ?? '', { redirect: 'manual' });
    assert.equal(slack.status, 302, 'Slack sends the browser back with a code');
    return {
      redirect: slack.headers.get('location') ?? '',
      cookie,
      authorize: h.fake.oauth.authorizeRequests.at(-1) as URL,
    };
  };
  const finish = (flow: Flow, cookie = flow.cookie): Promise<Response> =>
    fetch(flow.redirect, { headers: cookie ? { cookie } : {} });

  it('doctor names the install page instead of asking for a bot token', async () => {
    const result = await checkSlack(h.config.slack);
    assert.equal(result.status, 'ok');
    assert.match(result.detail, /\/slack\/install/);
  });

  it('installs two workspaces through the OAuth v2 flow', async () => {
    for (const team of ['T0001', SECOND.team]) {
      const flow = await startInstall(team);
      assert.equal(flow.authorize.searchParams.get('redirect_uri'), `${h.serverUrl}/slack/oauth_redirect`);
      assert.match(flow.authorize.searchParams.get('scope') ?? '', /chat:write/);
      const done = await finish(flow);
      assert.equal(done.status, 200);
      assert.match(await done.text(), /installed in (fake|second)/);
    }
    assert.deepEqual(
      (await h.db.stores.slackInstalls.list()).map((row) => row.teamId),
      ['T0001', SECOND.team],
    );
  });

  it('answers each workspace with its own token', async () => {
    h.llm.enqueue({ text: 'Answer for the first workspace.' }, { text: 'Answer for the second workspace.' });
    const first = h.mention(alice, 'hello from one');
    await h.fake.waitFor(
      () => h.textReplies(first.threadTs).find((m) => m.text === 'Answer for the first workspace.'),
      15_000,
      'first answer',
    );
    const message = h.fake.state.addMessage({
      channel: SECOND.channel,
      user: bob.id,
      text: `<@${SECOND.bot}> hello from two`,
    });
    for (const payload of h.fake.state.messageEvents(message, 'channel')) h.fake.send('events_api', payload, false);
    const second = await h.fake.waitFor(
      () =>
        h.fake.state
          .thread(SECOND.channel, message.ts)
          .find((m) => m.user === SECOND.bot && m.text === 'Answer for the second workspace.'),
      15_000,
      'second answer',
    );
    assert.equal(second.botId, 'B0002');
    const tokensFor = (channel: string): Set<string> =>
      new Set(
        h.fake.calls
          .filter((call) => call.body.channel === channel || call.body.channel_id === channel)
          .map((call) => call.token.split('-').slice(0, 2).join('-')),
      );
    assert.deepEqual([...tokensFor(CHANNEL)], ['xoxb-T0001']);
    assert.deepEqual([...tokensFor(SECOND.channel)], ['xoxb-T0002']);
    assert.equal(
      h.fake.calls.some((call) => call.status === 200 && call.token === h.fake.botToken),
      false,
      'no call used a configured bot token',
    );
  });

  it("downloads a file shared in the second workspace with that workspace's installed token", async () => {
    h.llm.enqueue({ text: 'Read your notes.' });
    const before = h.fake.files.requests.length;
    const bytes = Buffer.from('notes from the second workspace\n');
    const { message } = h.fake.userMessageWithFiles(bob, SECOND.channel, `<@${SECOND.bot}> read this`, [
      { name: 'notes.txt', contentType: 'text/plain', bytes },
    ]);
    await h.fake.waitFor(
      () =>
        h.fake.state
          .thread(SECOND.channel, message.ts)
          .find((m) => m.user === SECOND.bot && m.text === 'Read your notes.'),
      15_000,
      'answer about the file',
    );
    const fetched = h.fake.files.requests.slice(before);
    assert.ok(fetched.length > 0, 'the file was fetched');
    assert.ok(
      fetched.every((request) => request.authorization?.startsWith('Bearer xoxb-T0002-')),
      'with the second workspace token',
    );
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /Attached file saved in the workspace: [^\]]*notes\.txt/);
    assert.equal(
      h.fake.state.thread(SECOND.channel, message.ts).some((m) => m.text.includes('Some attachments were not used')),
      false,
    );
  });

  it("runs an approval in the second workspace with that workspace's token; the fake refuses the other's", async () => {
    h.llm.enqueue(
      { toolCalls: [{ id: 'call_i1', name: 'bash', arguments: JSON.stringify({ command: 'echo two' }) }] },
      { text: 'Printed two.' },
    );
    const message = h.fake.state.addMessage({
      channel: SECOND.channel,
      user: bob.id,
      text: `<@${SECOND.bot}> run echo two`,
    });
    for (const payload of h.fake.state.messageEvents(message, 'channel')) h.fake.send('events_api', payload, false);
    const card = await h.fake.waitFor(
      () =>
        h.fake.state
          .thread(SECOND.channel, message.ts)
          .find((m) => /Tool Approval Required/.test(JSON.stringify(m.blocks))),
      20_000,
      'approval card in the second workspace',
    );
    h.fake.click(card, h.button(card, 'Approve') ?? '', bob);
    await h.fake.waitFor(
      () => h.fake.state.thread(SECOND.channel, message.ts).find((m) => m.text === 'Printed two.'),
      20_000,
      'answer after the click',
    );
    const wrong = h.fake.calls.filter(
      (call) => (call.body.channel ?? call.body.channel_id) === SECOND.channel && !call.token.startsWith('xoxb-T0002-'),
    );
    assert.deepEqual(wrong, []);
    const firstToken = h.fake.calls.find((call) => call.body.channel === CHANNEL)?.token ?? '';
    const answer = await fetch(`${h.fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${firstToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: SECOND.channel, text: 'x' }),
    });
    assert.deepEqual(
      await answer.json(),
      { ok: false, error: 'channel_not_found' },
      'the fake refuses a token of another workspace',
    );
  });

  it('refuses a forged, foreign or replayed state with 400 and stores nothing', async () => {
    const before = await h.db.stores.slackInstalls.list();
    const issued = h.fake.oauth.issued;
    const flow = await startInstall(SECOND.team);
    const forged = new URL(flow.redirect);
    forged.searchParams.set('state', 'forged-state');
    const refusals = [
      await fetch(forged, { headers: { cookie: 'slack-app-oauth-state=forged-state' } }),
      await finish(flow, ''),
      await finish(flow, 'slack-app-oauth-state=someone-elses'),
      await fetch(`${h.serverUrl}/slack/oauth_redirect?error=access_denied&state=x`),
    ];
    const accepted = await finish(flow);
    const replayed = await finish(flow);
    assert.deepEqual(
      refusals.map((answer) => answer.status),
      [400, 400, 400, 400],
      'forged, no cookie, another browser, cancelled on Slack',
    );
    assert.equal(accepted.status, 200);
    assert.equal(replayed.status, 400, 'a state is used once');
    assert.equal(h.fake.oauth.issued, issued + 1, 'only the one good redirect exchanged its code');
    assert.equal((await h.db.stores.slackInstalls.list()).length, before.length);
  });

  it('keeps bot tokens encrypted in the database file', async () => {
    const rows = await h.db.stores.slackInstalls.list();
    assert.equal(rows.length, 2);
    for (const row of rows) assert.doesNotMatch(row.botToken, /xoxb-/);
    const file = h.db.url.replace(/^sqlite:/, '');
    if (h.db.url.startsWith('sqlite:')) {
      const files = [file, `${file}-wal`].filter((path) => existsSync(path));
      const bytes = files.map((path) => readFileSync(path).toString('latin1')).join('');
      assert.match(bytes, /T0002/, 'the file holds the installs');
      assert.equal(bytes.includes('xoxb-'), false, 'no token in the database file or its WAL');
    }
  });

  it('removes an uninstalled workspace and ignores its later events; a revoked token does the same', async () => {
    const id = h.fake.uninstall(SECOND.team);
    await waitFor(
      async () => (await h.db.stores.slackInstalls.get(SECOND.team)) === undefined,
      'the uninstalled workspace removed',
      10_000,
    );
    const requests = h.llm.requests.length;
    const message = h.fake.state.addMessage({
      channel: SECOND.channel,
      user: bob.id,
      text: `<@${SECOND.bot}> still there?`,
    });
    const ids = h.fake.state
      .messageEvents(message, 'channel')
      .map((payload) => h.fake.send('events_api', payload, false));
    // The first workspace still works (and orders the check: its answer comes after the ignored events).
    h.llm.enqueue({ text: 'Still answering the first.' });
    const first = h.mention(alice, 'and you?');
    await h.fake.waitFor(
      () => h.textReplies(first.threadTs).find((m) => m.text === 'Still answering the first.'),
      15_000,
      'first still answered',
    );
    await http.settled();
    assert.deepEqual(
      [id, ...ids].map((delivery) => http.answers.get(delivery)?.status),
      [200, 200, 200],
      'acknowledged',
    );
    assert.equal(h.fake.state.thread(SECOND.channel, message.ts).length, 0, 'no answer in the uninstalled workspace');
    assert.equal(h.llm.requests.length, requests + 1, 'only the first workspace reached the model');
    h.fake.revokeTokens('T0001');
    await waitFor(
      async () => (await h.db.stores.slackInstalls.list()).length === 0,
      'the revoked install removed',
      10_000,
    );
  });
});
