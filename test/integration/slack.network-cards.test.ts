/** End to end on Slack: a sandboxed bash's new host becomes a network card; Allow once and Deny are honoured. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { findExecutable } from '../../src/agent/tools/run-contained.js';
import { detectSandbox } from '../../src/agent/sandbox/detect-sandbox.js';
import { SlackHarness } from '../fakes/fake-slack-harness.js';
import type { FakeSlackUser } from '../fakes/fake-slack.js';

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

describe('slack network cards', () => {
  let h: SlackHarness;
  let alice: FakeSlackUser;
  let server: http.Server;
  let port: number;
  let sandboxed = false;
  before(async () => {
    server = http.createServer((request, response) => response.end(`REMOTE-HOST ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    sandboxed =
      (await detectSandbox({ mode: 'auto' })).kind === 'bwrap' && (await findExecutable('curl')) !== undefined;
    h = await SlackHarness.start({
      flags: {
        'tools.network': 'ask',
        'tools.network_internal': [`127.0.0.1:${port}`],
        'agent.auto_approve_tools': ['bash'],
      },
    });
    alice = (await h.linkedUser('U0ALICE', 'alice')).user;
  });
  after(async () => {
    server?.close();
    await h?.close();
  });

  const lastToolResult = (): string => {
    const messages =
      (h.llm.requests.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ??
      [];
    return String(messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '');
  };

  for (const [label, expected] of [
    ['Allow once', /REMOTE-HOST \/slack/],
    ['Deny', /403 Forbidden[\s\S]*the owner denied/],
  ] as const) {
    it(`honours ${label} on the card`, async (t) => {
      if (!sandboxed) return t.skip('bubblewrap or curl is not usable on this host');
      h.llm.enqueue(bash(`call_${label.length}`, `curl -sS -i --max-time 20 http://127.0.0.1:${port}/slack`), {
        text: `${label} over`,
      });
      const { threadTs } = h.mention(alice, 'fetch please');
      const card = await h.fake.waitFor(
        () => h.botReplies(threadTs).find((m) => m.text === 'Network access requested'),
        30_000,
        'network card',
      );
      assert.equal(card.text, 'Network access requested');
      assert.match(JSON.stringify(card.blocks), new RegExp(`bash wants to reach 127\\.0\\.0\\.1:${port}`));
      assert.deepEqual(
        h.fake.state.buttons(card).map((b) => b.text?.text),
        ['Allow once', 'Always here', 'Deny'],
      );
      h.fake.click(card, h.button(card, label) ?? '', alice);
      await h.fake.waitFor(
        () => h.textReplies(threadTs).find((m) => m.text === `${label} over`),
        30_000,
        'final answer',
      );
      assert.match(lastToolResult(), expected);
      assert.match(JSON.stringify(card.blocks), label === 'Deny' ? /Denied by alice/ : /Allowed once by alice/);
    });
  }
});
