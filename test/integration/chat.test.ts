/** `sandpiper chat` end to end: piped streams, the real OpenAI client against the fake LLM server, a bash approval typed as `y`. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/index.js';
import { runChat } from '../../src/main-chat.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING } from '../fakes/mcp-servers.js';
import { waitFor } from './agent.harness.js';

describe('sandpiper chat', () => {
  let llm: FakeLlmServer;
  let dir: string;
  before(async () => {
    llm = await startFakeLlmServer();
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-chat-'));
  });
  after(async () => {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a question, asks to approve a tool, and prints the final answer', async () => {
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: { 'gateway.data_dir': dir, models: { main: { provider: 'openai', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } } },
    });
    llm.enqueue(
      { text: 'Paris is the capital.' },
      { toolCalls: [{ name: 'bash', arguments: '{"command":"echo from-bash-$((6*7))"}' }] },
      { text: 'The command printed 42.' },
    );
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const done = runChat({ config, input, output, logger: createSilentLogger() });
    input.write('What is the capital of France?\n');
    await waitFor(() => printed.includes('Paris is the capital.'), 'first answer');
    input.write('run the command\n');
    await waitFor(() => printed.includes('Approve? [y/n/a(lways)/feedback]'), 'approval prompt');
    assert.match(printed, /bash/);
    input.write('y\n');
    await waitFor(() => printed.includes('The command printed 42.'), 'final answer');
    assert.match(printed, /from-bash-42/);
    input.write('/history\n');
    await waitFor(() => printed.includes('user: run the command'), 'history');
    input.write('/quit\n');
    await done;
  });

  it('offers the configured MCP servers\' tools and runs one after approval', async () => {
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: {
        'gateway.data_dir': join(dir, 'mcp'),
        models: { main: { provider: 'openai', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        'mcp.servers.everything.command': process.execPath,
        'mcp.servers.everything.args': [EVERYTHING, 'stdio'],
        // server-everything pushes the count above the auto threshold; this test wants every tool in the request.
        'tools.search': 'off',
      },
    });
    llm.enqueue({ toolCalls: [{ name: 'mcp__everything__echo', arguments: '{"message":"ping from chat"}' }] }, { text: 'Echoed.' });
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const done = runChat({ config, input, output, logger: createSilentLogger() });
    const before = llm.requests.length;
    input.write('echo something\n');
    await waitFor(() => printed.includes('Approve? [y/n/a(lways)/feedback]'), 'approval prompt');
    const tools = ((llm.requests[before]?.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((tool) => tool.function.name);
    assert.ok(tools.includes('mcp__everything__echo'), tools.join(','));
    input.write('y\n');
    await waitFor(() => printed.includes('Echoed.'), 'final answer');
    assert.match(JSON.stringify(llm.requests.at(-1)?.body), /Echo: ping from chat/);
    input.write('/quit\n');
    await done;
  });
});
