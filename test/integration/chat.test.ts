/** `sandpiper chat` end to end: piped streams, the real OpenAI client against the fake LLM server, a bash approval typed as `y`. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
    input.write('/status\n');
    await waitFor(() => printed.includes('Pending approvals: 0'), 'status');
    input.write('/quit\n');
    await done;
  });

  it('--model starts the terminal conversation on that model, and switches the open one', async () => {
    const models = {
      main: { provider: 'openai', base_url: llm.url, api_key: 'sk-test', model: 'fake-main' },
      other: { provider: 'openai', base_url: llm.url, api_key: 'sk-test', model: 'fake-other' },
    };
    const config = loadConfig({ cwd: dir, env: {}, flags: { 'gateway.data_dir': join(dir, 'model'), models } });
    for (const [alias, expected] of [['other', 'fake-other'], ['main', 'fake-main']] as const) {
      llm.enqueue({ text: `answered by ${alias}` });
      const input = new PassThrough();
      const output = new PassThrough();
      let printed = '';
      output.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
      const done = runChat({ config, input, output, logger: createSilentLogger(), modelAlias: alias });
      input.write('which model?\n');
      await waitFor(() => printed.includes(`answered by ${alias}`), `answer of ${alias}`);
      assert.equal((llm.requests.at(-1)?.body as { model?: string }).model, expected);
      input.write('/quit\n');
      await done;
    }
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

  it('asks an MCP elicitation at the prompt, re-asks on a bad value, and hands the answer to the server', async () => {
    const formServer = fileURLToPath(new URL('../fakes/mcp-form-server.mjs', import.meta.url));
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: {
        'gateway.data_dir': join(dir, 'form'),
        models: { main: { provider: 'openai', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
        'mcp.servers.form.command': process.execPath,
        'mcp.servers.form.args': [formServer],
        'agent.auto_approve_tools': ['mcp__*'],
      },
    });
    llm.enqueue({ toolCalls: [{ name: 'mcp__form__book_table', arguments: '{}' }] }, { text: 'Booked.' });
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const done = runChat({ config, input, output, logger: createSilentLogger() });
    input.write('book a table\n');
    await waitFor(() => printed.includes('Answer? [y/n]'), 'form prompt');
    assert.match(printed, /form asks: Please give the booking details\./);
    input.write('y\n');
    // Name, Guests (out of range first), Outside, Time.
    for (const answer of ['Ada', '99', 'yes', '19:30']) input.write(`${answer}\n`);
    await waitFor(() => /Guests/.test(printed.split('19:30').at(-1) ?? '') && printed.split('Name').length > 2, 'the form asked again');
    for (const answer of ['Ada', '4', 'yes', '19:30']) input.write(`${answer}\n`);
    await waitFor(() => printed.includes('Booked.'), 'final answer');
    const result = JSON.stringify(llm.requests.at(-1)?.body);
    assert.match(result, /accept/);
    assert.match(result, /Ada/);
    assert.match(result, /\\"guests\\":4/);
    input.write('/quit\n');
    await done;
  });
});
