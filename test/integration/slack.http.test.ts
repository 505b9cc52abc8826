/**
 * End to end over bolt with slack.mode = "http": Slack POSTs signed requests to `POST /slack/events`. A DM and a thread
 * conversation with a Block Kit approval work as over Socket Mode; badly signed, stale, unsigned, tampered or replayed
 * requests get 401 and change nothing; Slack's own retry of an event is handled once; every answer comes within 3 s.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness, SIGNING_SECRET } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';
import type { FakeSlackHttp, HttpAnswer, HttpDeliveryOptions } from '../fakes/fake-slack-http.js';
import { slackConfigSchema } from '../../src/config/config-schema.js';
import { checkSlack } from '../../src/doctor/platform-checks.js';

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});
const DM = 'D0ALICE';

describe('slack over HTTP (Events API, interactivity and slash commands at /slack/events)', () => {
  let h: SlackHarness;
  let http: FakeSlackHttp;
  let alice: FakeSlackUser;
  const answers: HttpAnswer[] = [];
  before(async () => {
    h = await SlackHarness.start({ http: true });
    http = h.fake.http as FakeSlackHttp;
    alice = (await h.linkedUser('U0ALICE', 'alice')).user;
  });
  after(async () => {
    await h.close();
  });

  /** A mention event (not yet delivered) in the channel, and its thread ts. */
  const mentionPayload = (text: string): { payload: Record<string, unknown>; ts: string } => {
    const message = h.fake.state.addMessage({ channel: CHANNEL, user: alice.id, text: `<@${BOT_USER_ID}> ${text}` });
    const [payload] = h.fake.state.messageEvents(message, 'channel');
    return { payload: payload ?? {}, ts: message.ts };
  };
  const deliver = async (payload: Record<string, unknown>, options: HttpDeliveryOptions = {}): Promise<HttpAnswer> => {
    const answer = await http.deliver('events_api', payload, options);
    answers.push(answer);
    return answer;
  };

  it('answers url_verification with the challenge', async () => {
    const answer = await deliver({ token: 'verif', challenge: 'c-123', type: 'url_verification' });
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { challenge: 'c-123' });
  });

  it('holds a DM conversation', async () => {
    h.llm.enqueue({ text: 'Hello over HTTP.' });
    h.fake.userMessage(alice, DM, 'hi there');
    await h.fake.waitFor(
      () => h.fake.state.topLevel(DM).find((m) => m.user === BOT_USER_ID && m.text === 'Hello over HTTP.'),
      15_000,
      'DM answer',
    );
  });

  it('holds a thread conversation with a Block Kit approval (the click arrives as a signed interactivity request)', async () => {
    h.llm.enqueue(bash('call_h1', 'echo over-http'), { text: 'It printed over-http.' });
    const { threadTs } = h.mention(alice, 'run echo please');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    const id = h.fake.click(card, h.button(card, 'Approve') ?? '', alice).envelopeId;
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'It printed over-http.'),
      20_000,
      'final answer',
    );
    await http.settled();
    assert.equal(http.answers.get(id)?.status, 200, 'the click was acknowledged');
  });

  it('refuses 20+ badly signed, stale, unsigned, tampered or replayed requests with 401, and handles a retry once', async () => {
    const calls = h.llm.requests.length;
    const now = Math.floor(Date.now() / 1000);
    const bad: Array<{ what: string; options: HttpDeliveryOptions }> = [
      { what: 'wrong secret', options: { secret: 'not-the-secret' } },
      { what: 'empty secret', options: { secret: '' } },
      { what: 'unsigned', options: { signature: null } },
      { what: 'empty signature', options: { signature: '' } },
      { what: 'garbage signature', options: { signature: 'v0=deadbeef' } },
      { what: 'unknown version', options: { signature: `v1=${'0'.repeat(64)}` } },
      { what: 'no hash', options: { signature: 'v0=' } },
      { what: 'stale by 6 min', options: { timestampSec: now - 360 } },
      { what: 'stale by a day', options: { timestampSec: now - 86_400 } },
      { what: 'future by 6 min', options: { timestampSec: now + 360 } },
      { what: 'timestamp zero', options: { timestampSec: 0 } },
      { what: 'negative timestamp', options: { timestampSec: -1 } },
      { what: 'retry with a wrong signature', options: { retryNum: 1, secret: 'nope' } },
    ];
    const refused: string[] = [];
    for (const { what, options } of bad) {
      const { payload, ts } = mentionPayload(`forged ${what}`);
      const answer = await deliver(payload, options);
      if (answer.status === 401) refused.push(ts);
      else assert.fail(`${what}: ${answer.status}`);
    }
    // Signed right for one body, sent with another; a signature of another timestamp; a signature with its timestamp changed.
    for (let index = 0; index < 4; index += 1) {
      const { payload, ts } = mentionPayload(`tampered ${index}`);
      const request = http.request('events_api', payload);
      const tampered =
        index % 2 === 0
          ? { ...request, body: request.body.replace('tampered', 'TAMPERED') }
          : { ...request, headers: { ...request.headers, 'x-slack-request-timestamp': String(now - 1 - index) } };
      const answer = await http.post(tampered);
      answers.push(answer);
      assert.equal(answer.status, 401, `tampered ${index}`);
      refused.push(ts);
    }
    // Replays: the same signed request again is refused; its first delivery is handled once.
    h.llm.enqueue({ text: 'Answered once.' }, { text: 'Retried once.' });
    const original = mentionPayload('replay me');
    const request = http.request('events_api', original.payload);
    assert.equal((await http.post(request)).status, 200);
    for (let index = 0; index < 4; index += 1) {
      const answer = await http.post(request);
      answers.push(answer);
      assert.equal(answer.status, 401, `replay ${index}`);
    }
    // Slack's own retries (signed anew, X-Slack-Retry-Num, the same event_id) are acknowledged and deduplicated.
    const retried = mentionPayload('retry me');
    for (let retryNum = 0; retryNum < 3; retryNum += 1) {
      assert.equal((await deliver(retried.payload, retryNum === 0 ? {} : { retryNum })).status, 200);
    }
    await h.fake.waitFor(
      () => h.textReplies(original.ts).find((m) => m.text === 'Answered once.'),
      15_000,
      'the replayed mention answered',
    );
    await h.fake.waitFor(
      () => h.textReplies(retried.ts).find((m) => m.text === 'Retried once.'),
      15_000,
      'the retried mention answered',
    );
    assert.equal(refused.length + 4 >= 20, true, `${refused.length + 4} refused requests`);
    assert.equal(h.llm.requests.length, calls + 2, 'only the two genuine mentions reached the model, once each');
    for (const ts of refused) assert.equal(h.botReplies(ts).length, 0, 'a refused request changed nothing');
    assert.equal(h.textReplies(original.ts).length, 1);
    assert.equal(h.textReplies(retried.ts).length, 1);
  });

  it('doctor checks the bot token without an app token in HTTP mode', async () => {
    const config = slackConfigSchema.parse({
      mode: 'http',
      bot_token: h.fake.botToken,
      signing_secret: SIGNING_SECRET,
      api_url: h.fake.apiUrl,
    });
    const result = await checkSlack(config);
    assert.equal(result.status, 'ok');
    assert.match(result.detail, /HTTP mode/);
    assert.equal(
      (await checkSlack({ ...config, signing_secret: undefined })).status,
      'skip',
      'no signing secret: not configured',
    );
  });

  it('answers every request within 3 s', () => {
    const slowest = Math.max(
      ...answers.map((answer) => answer.ms),
      ...[...http.answers.values()].map((answer) => answer.ms),
    );
    assert.ok(slowest < 3_000, `slowest answer ${Math.round(slowest)} ms`);
  });
});
