/** Fail closed through the running gateway: default config, no working bubblewrap, an asked-for bash is refused and the user reads why. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { waitFor } from '../helpers/tool-context.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';

describe('no working bubblewrap and the default config (tools.sandbox = "auto")', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeUser;
  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    // The gateway runs in this process: a PATH without bwrap (or prlimit, setpriv) while it detects its sandbox.
    const path = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      gateway = await startTestGateway({ discord, llm, users: [['discord', '400000000000000001', 'alice']] });
      await waitFor(
        async () =>
          ((await (await fetch(`${gateway.url}/health`)).json()) as { sandbox?: string }).sandbox === 'unavailable',
        '/health to say the sandbox is unavailable',
        20_000,
      );
    } finally {
      process.env['PATH'] = path;
    }
    alice = discord.user('400000000000000001', 'alice');
  });
  after(async () => {
    await gateway?.close();
  });

  const botMessages = (threadId: string): FakeMessage[] =>
    discord.state.messagesIn(threadId).filter((m) => m.author.id === discord.state.bot.id);

  it('bash is refused before any card; the model and the thread say why and how to fix it', async () => {
    llm.enqueue(
      {
        toolCalls: [
          {
            id: 'call_b1',
            name: 'bash',
            arguments: JSON.stringify({ command: 'touch /tmp/sp-should-not-exist; echo ran' }),
          },
        ],
      },
      { text: 'bash attempt over' },
    );
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, 'run this', true);
    await discord.waitFor(
      () => botMessages(mention.id).find((m) => m.content === 'bash attempt over'),
      30_000,
      'the answer',
    );
    const messages = (llm.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] }).messages;
    const toolResult = String(messages.find((message) => message.role === 'tool')?.content);
    assert.match(
      toolResult,
      /^Refused: this tool runs a process, .* unavailable on this host \(bubblewrap unusable: bwrap is not installed\)/,
    );
    assert.match(toolResult, /install bubblewrap .*seccomp.* or set tools\.sandbox = "off"/);
    assert.equal(existsSync('/tmp/sp-should-not-exist'), false, 'nothing ran');
    assert.equal(
      botMessages(mention.id).filter((m) => JSON.stringify(m.embeds).includes('Approval')).length,
      0,
      'no card for a call that cannot run',
    );
    assert.match(
      JSON.stringify(botMessages(mention.id).map((m) => m.embeds)),
      /bash — Error.*Refused: this tool runs a process.*install bubblewrap/,
      'the thread shows the refusal',
    );
  });
});
