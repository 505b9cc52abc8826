/**
 * End to end over bolt: Slack agent sessions. A conversation's thread shows processing → suspended (approval card)
 * → processing → active → closed; the session's native Stop (`agent_session_stopped`) from the owner stops a streaming
 * turn, from a stranger nothing; a workspace that refuses sessions still gets its answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import type { FakeSlackUser } from '../fakes/fake-slack.js';
import { slackConfigSchema } from '../../src/config/config-schema.js';
import { checkSlack } from '../../src/doctor/platform-checks.js';

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

describe('slack agent sessions', () => {
  let h: SlackHarness;
  let alice: FakeSlackUser;
  let mallory: FakeSlackUser;
  before(async () => {
    h = await SlackHarness.start();
    // Native streaming on from the start: a workspace that once refused streaming is not asked again.
    h.fake.streams.rules.enabled = true;
    alice = (await h.linkedUser('U0ALICE', 'alice')).user;
    mallory = (await h.linkedUser('U0MALLORY', 'mallory')).user;
  });
  after(async () => {
    await h.close();
  });

  const statuses = (threadTs: string): string[] => h.fake.sessions.session(CHANNEL, threadTs)?.statuses ?? [];

  it('shows processing, suspended while the approval card waits, active after the turn and closed on close', async () => {
    const question = `run echo please ${'and tell me everything '.repeat(12)}`.trim();
    h.llm.enqueue(bash('call_s1', 'echo session-run'), { text: 'It printed session-run.' });
    const { threadTs } = h.mention(alice, question);
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    await h.fake.waitFor(() => statuses(threadTs).at(-1) === 'suspended' || undefined, 15_000, 'suspended session');
    h.fake.click(card, h.button(card, 'Approve') ?? '', alice);
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => m.text === 'It printed session-run.'),
      20_000,
      'final answer',
    );
    await h.fake.waitFor(() => statuses(threadTs).at(-1) === 'active' || undefined, 15_000, 'active session');
    assert.deepEqual(statuses(threadTs), ['processing', 'suspended', 'processing', 'active']);
    const session = h.fake.sessions.session(CHANNEL, threadTs);
    assert.ok(
      session && session.title.length <= 200 && session.title.startsWith('run echo please'),
      `title: ${session?.title ?? ''}`,
    );
    const titled = h.fake
      .callsOf('agents.sessions.setStatus')
      .filter((call) => call.body.thread_ts === threadTs && call.body.title !== undefined);
    assert.equal(titled.length, 1, 'the title goes only with the call that creates the session');

    h.fake.userMessage(alice, CHANNEL, '!close', threadTs);
    await h.fake.waitFor(() => statuses(threadTs).at(-1) === 'closed' || undefined, 15_000, 'closed session');
  });

  it('a message streamed before a tool call keeps the session processing: chat.stopStream passes its status', async () => {
    h.llm.enqueue(
      { text: 'Let me run it first.', ...bash('call_s2', 'echo kept-processing') },
      { text: 'It printed kept-processing.' },
    );
    const { threadTs } = h.mention(alice, 'run echo and keep the stop button');
    const card = await h.fake.waitFor(() => h.cards(threadTs)[0], 20_000, 'approval card');
    await h.fake.waitFor(() => statuses(threadTs).at(-1) === 'suspended' || undefined, 15_000, 'suspended session');
    const streamed = h.textReplies(threadTs).find((message) => message.text === 'Let me run it first.');
    assert.ok(
      streamed && h.fake.streams.isStreamed(streamed) && !h.fake.streams.isOpen(streamed),
      'the first text was streamed and stopped',
    );
    const stop = h.fake.callsOf('chat.stopStream').find((call) => call.body.ts === streamed.ts);
    assert.equal(stop?.body.session_status, 'processing', 'the stop keeps the status the session shows');
    h.fake.click(card, h.button(card, 'Approve') ?? '', alice);
    await h.fake.waitFor(() => statuses(threadTs).at(-1) === 'active' || undefined, 20_000, 'active session');
    assert.deepEqual(
      statuses(threadTs),
      ['processing', 'suspended', 'processing', 'active'],
      'never active before the turn ended',
    );
  });

  it("a stranger's native Stop stops nothing: Slack ends the streamed message, the answer goes on in a new one", async () => {
    const words = Array.from({ length: 16 }, (_, index) => `word${index} `);
    h.llm.enqueue({ text: words, delayMs: 100 });
    const { threadTs } = h.mention(alice, 'count slowly');
    await h.fake.waitFor(
      () => h.fake.callsOf('chat.startStream').find((call) => call.body.thread_ts === threadTs),
      15_000,
      'stream started',
    );
    h.sessionStop(mallory, threadTs);
    const refusal = await h.fake.waitFor(() => h.fake.state.privateTo(mallory.id).at(-1), 15_000, 'refusal');
    assert.match(refusal, /only|owner/i);
    await h.fake.waitFor(() => statuses(threadTs).at(-1) === 'active' || undefined, 15_000, 'turn ended');
    const shown = h
      .textReplies(threadTs)
      .map((message) => message.text)
      .join('');
    assert.equal(shown.replace(/\s+/g, ' ').trim(), words.join('').trim(), 'the whole answer is shown');
    assert.ok(h.textReplies(threadTs).length >= 2, 'continued in a new message after Slack stopped the first');
    assert.ok(!h.textReplies(threadTs).some((message) => /Cancelled/.test(message.text)), 'not cancelled');
  });

  it("the owner's native Stop stops a streaming turn within 2 s", async (t) => {
    h.llm.enqueue({ text: ['Streaming along'], hang: true });
    const { threadTs } = h.mention(alice, 'write a long story');
    await h.fake.waitFor(
      () => h.fake.callsOf('chat.startStream').find((call) => call.body.thread_ts === threadTs),
      15_000,
      'stream started',
    );
    assert.equal(statuses(threadTs).at(-1), 'processing');
    const started = performance.now();
    h.sessionStop(alice, threadTs);
    await h.fake.waitFor(() => statuses(threadTs).at(-1) === 'active' || undefined, 2_000, 'turn stopped');
    const took = performance.now() - started;
    assert.ok(took < 2_000, `stopped in ${Math.round(took)} ms`);
    t.diagnostic(`stopped in ${Math.round(took)} ms`);
    await h.fake.waitFor(
      () => h.textReplies(threadTs).find((m) => /Cancelled/.test(m.text)),
      15_000,
      'cancelled notice',
    );
    assert.equal(h.llm.requests.at(-1)?.finished, false, 'the model was not asked again');
  });

  it('a workspace that refuses sessions is asked once and still gets its answers', async () => {
    h.fake.sessions.refuse = 'not_allowed_token_type';
    try {
      const before = h.fake.sessions.calls;
      h.llm.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
      const { threadTs } = h.mention(alice, 'hello');
      await h.fake.waitFor(
        () => h.textReplies(threadTs).find((m) => m.text === 'First answer.'),
        15_000,
        'first answer',
      );
      h.fake.userMessage(alice, CHANNEL, 'again', threadTs);
      await h.fake.waitFor(
        () => h.textReplies(threadTs).find((m) => m.text === 'Second answer.'),
        15_000,
        'second answer',
      );
      assert.equal(h.fake.sessions.calls - before, 1, 'no call after the refusal');
    } finally {
      h.fake.sessions.refuse = undefined;
    }
  });

  it('doctor says when the bot token cannot have sessions (no assistant:write: the app is no agent)', async () => {
    const config = slackConfigSchema.parse({
      bot_token: h.fake.botToken,
      app_token: h.fake.appToken,
      api_url: h.fake.apiUrl,
    });
    assert.match((await checkSlack(config)).detail, /agent sessions available/);
    const scopes = h.fake.scopes;
    h.fake.scopes = scopes.filter((scope) => scope !== 'assistant:write');
    try {
      const result = await checkSlack(config);
      assert.equal(result.status, 'warn');
      assert.match(result.detail, /agent sessions refused: the bot token lacks assistant:write/);
      assert.equal(
        (await checkSlack({ ...config, agent_sessions: false })).status,
        'ok',
        'not asked for when sessions are off',
      );
    } finally {
      h.fake.scopes = scopes;
    }
  });
});
