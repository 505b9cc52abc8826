/**
 * Traces and metrics end to end: one Discord turn with an MCP tool call, spans exported over OTLP/HTTP to an
 * in-process receiver (checked for their parent/child structure), and /metrics showing every telemetry series.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SPAN } from '../../src/shared/telemetry.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING, waitFor } from '../fakes/mcp-servers.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP JSON receiver on port 0: collects every span of every `POST /v1/traces`. */
async function startOtlpReceiver(): Promise<{
  url: string;
  spans: OtlpSpan[];
  paths: string[];
  close(): Promise<void>;
}> {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const payload = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
      for (const resource of payload.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : (value['stringValue'] ?? value['intValue'] ?? value['boolValue']);
};

describe('telemetry: OTLP spans and Prometheus series for one Discord turn', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

  before(async () => {
    receiver = await startOtlpReceiver();
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      discord,
      llm,
      mcpServers: { everything: [EVERYTHING, 'stdio'] },
      flags: {
        'tools.search': 'off',
        'telemetry.otlp_endpoint': receiver.url,
        'agent.auto_approve_tools': ['mcp__everything__echo'],
      },
      users: [['discord', '400000000000000001', 'alice']],
      waitConnected: true,
    });
  });
  after(async () => {
    await gateway?.close();
    await receiver?.close();
  });

  it('exports the span tree inbound → route → turn → model calls and tool call → MCP call, with platform calls', async () => {
    llm.enqueue(
      {
        toolCalls: [
          { id: 'call_echo', name: 'mcp__everything__echo', arguments: JSON.stringify({ message: 'traced' }) },
        ],
        usage: { inputTokens: 42, outputTokens: 7 },
      },
      { text: 'The echo said traced.' },
    );
    // One 429 on an edit: discord.js waits and retries, the adapter reports it.
    discord.rateLimit('PATCH', /^\/channels\/\d+\/messages\/\d+$/, 1, 0.1);
    const alice = discord.user('400000000000000001', 'alice');
    const message = discord.state.injectMessage(CHANNEL_ID, alice, 'echo something', true);
    await discord.waitFor(
      () => discord.state.messagesIn(message.id).find((m) => m.content === 'The echo said traced.'),
      30_000,
      'final answer',
    );

    const named = (name: string): OtlpSpan[] => receiver.spans.filter((span) => span.name === name);
    const exported = (): boolean => {
      const root = named(SPAN.inbound).find((span) => attribute(span, 'sandpiper.event') === 'message');
      const edit = named(SPAN.platformCall).some(
        (span) => span.traceId === root?.traceId && attribute(span, 'sandpiper.platform.operation') === 'edit',
      );
      return root !== undefined && edit && named(SPAN.turn).length > 0 && named(SPAN.modelCall).length >= 2;
    };
    await waitFor(exported, 'the spans of the turn, through its final edit', 20_000);
    assert.ok(
      receiver.paths.every((entry) => entry.startsWith('POST /v1/traces application/json')),
      receiver.paths.join('\n'),
    );

    const inbound = named(SPAN.inbound).find((span) => attribute(span, 'sandpiper.event') === 'message') as OtlpSpan;
    assert.equal(inbound.parentSpanId ?? '', '', 'the inbound message is the root');
    assert.equal(attribute(inbound, 'sandpiper.platform'), 'discord');
    const inTrace = receiver.spans.filter((span) => span.traceId === inbound.traceId);
    const byId = new Map(inTrace.map((span) => [span.spanId, span]));
    const parentName = (span: OtlpSpan): string | undefined => byId.get(span.parentSpanId ?? '')?.name;
    const only = (name: string): OtlpSpan => {
      const found = inTrace.filter((span) => span.name === name);
      assert.equal(found.length, 1, `one ${name} span in the trace: ${inTrace.map((span) => span.name).join(', ')}`);
      return found[0] as OtlpSpan;
    };

    assert.equal(parentName(only(SPAN.route)), SPAN.inbound);
    const turn = only(SPAN.turn);
    assert.equal(parentName(turn), SPAN.route);
    assert.equal(attribute(turn, 'sandpiper.turn.reason'), 'done');
    const models = inTrace.filter((span) => span.name === SPAN.modelCall);
    assert.equal(models.length, 2);
    for (const model of models) assert.equal(byId.get(model.parentSpanId ?? '')?.spanId, turn.spanId);
    assert.deepEqual(
      [
        attribute(models[0] as OtlpSpan, 'gen_ai.request.model'),
        Number(attribute(models[0] as OtlpSpan, 'gen_ai.usage.input_tokens')),
      ],
      ['gpt-fake', 42],
    );
    const tool = only(SPAN.toolCall);
    assert.equal(tool.parentSpanId, turn.spanId);
    assert.equal(attribute(tool, 'sandpiper.tool.name'), 'mcp__everything__echo');
    const mcp = only(SPAN.mcpCall);
    assert.equal(mcp.parentSpanId, tool.spanId);
    assert.equal(attribute(mcp, 'sandpiper.mcp.server'), 'everything');
    const platformCalls = inTrace.filter((span) => span.name === SPAN.platformCall);
    const operations = new Set(platformCalls.map((span) => attribute(span, 'sandpiper.platform.operation')));
    assert.ok(
      operations.has('startThread') && operations.has('post') && operations.has('edit'),
      [...operations].join(','),
    );
  });

  it('traces the wait for an approval inside its turn and counts it as pending meanwhile', async () => {
    llm.enqueue(
      { toolCalls: [{ id: 'call_bash', name: 'bash', arguments: JSON.stringify({ command: 'echo approved' }) }] },
      { text: 'Ran it.' },
    );
    const alice = discord.user('400000000000000001', 'alice');
    const message = discord.state.injectMessage(CHANNEL_ID, alice, 'run echo', true);
    const card = await discord.waitFor(
      () => discord.state.messagesIn(message.id).find((m) => JSON.stringify(m.embeds).includes('Approval')),
      30_000,
      'approval card',
    );
    assert.match(await (await fetch(`${gateway.url}/metrics`)).text(), /sandpiper_approvals_pending 1/);
    const rows = card.components as Array<{ components?: Array<{ label?: string; custom_id?: string }> }>;
    const approve =
      rows.flatMap((row) => row.components ?? []).find((button) => button.label === 'Approve')?.custom_id ?? '';
    discord.state.clickButton(card.id, approve, alice);
    await discord.waitFor(
      () => discord.state.messagesIn(message.id).find((m) => m.content === 'Ran it.'),
      30_000,
      'final answer',
    );
    const waitSpan = await discord.waitFor(
      () => receiver.spans.find((span) => span.name === SPAN.approvalWait),
      20_000,
      'approval span',
    );
    // The turn's span is exported when the turn ends, possibly in a later batch than the wait's: wait for it too.
    const turn = await discord.waitFor(
      () => receiver.spans.find((span) => span.name === SPAN.turn && span.traceId === waitSpan.traceId),
      20_000,
      'turn span',
    );
    assert.equal(waitSpan.parentSpanId, turn.spanId, 'the approval wait is a child of its turn');
    await discord.waitFor(
      () =>
        receiver.spans.find((span) => span.name === SPAN.toolCall && attribute(span, 'sandpiper.tool.name') === 'bash'),
      20_000,
      'bash span',
    );
  });

  it('shows every new series on /metrics after the turn', async () => {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    const expected = [
      /sandpiper_message_first_edit_seconds_count\{platform="discord"\} 2/,
      /sandpiper_turn_duration_seconds_count\{reason="done"\} [12]/,
      /sandpiper_model_call_duration_seconds_count\{model="gpt-fake",outcome="ok"\} [34]/,
      /sandpiper_model_tokens_total\{model="gpt-fake",kind="input"\} \d+/,
      /sandpiper_model_tokens_total\{model="gpt-fake",kind="output"\} \d+/,
      /sandpiper_tool_duration_seconds_count\{tool="mcp__everything__echo"\} 1/,
      /sandpiper_tool_failures_total\{tool="mcp__everything__echo"\} 0/,
      /sandpiper_tool_duration_seconds_count\{tool="bash"\} 1/,
      /sandpiper_mcp_calls_total\{server="everything",outcome="ok"\} 1/,
      /sandpiper_approvals_pending 0/,
      /sandpiper_inbound_queue_depth 0/,
      /sandpiper_platform_rate_limited_total\{platform="discord"\} [1-9]/,
    ];
    for (const pattern of expected) assert.match(text, pattern);
  });
});
