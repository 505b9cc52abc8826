/**
 * `sandpiper chat` as a channel: the real bin as a child process typed into through stdin, against the fake OpenAI
 * server. It meets the gateway's inbound limit, `/model`, the tool approval and the plan review as Discord does, shows
 * why a model call failed, and ends cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { BinProcess, cleanEnv } from '../helpers/run-bin.js';

const PLAN_A = [
  '## Goal', 'Add a /health endpoint to the service.',
  '## Current State', 'src/server.ts:12 defines the routes; there is no health route yet.',
  '## Plan', '1. Add a GET /health route in src/server.ts.', '2. Test it in test/server.test.ts.',
  '## Risks', 'Load balancers may cache the answer.',
].join('\n');
const PLAN_B = `${PLAN_A}\n3. Also expose the request count on /metrics.`;

/** A port nothing listens on (one that was just free). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('sandpiper chat through the gateway (child process)', () => {
  let llm: FakeLlmServer;
  let dir: string;
  let chat: BinProcess | undefined;
  before(async () => {
    llm = await startFakeLlmServer();
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-chat-channel-'));
  });
  afterEach(async () => {
    chat?.kill();
    await chat?.exited;
  });
  after(async () => {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const configFile = (name: string, models: string): string => {
    const file = join(dir, `${name}.toml`);
    writeFileSync(file, [`[gateway]`, `data_dir = "${join(dir, name)}"`, 'max_message_chars = 60', '', models].join('\n'));
    return file;
  };
  const model = (alias: string, url: string, name: string): string =>
    `[models.${alias}]\nprovider = "openai"\nbase_url = "${url}"\napi_key = "sk-secret-chat-key"\nmodel = "${name}"\n`;

  it('refuses an over-long message, switches the model, runs an approval and a plan review, and exits 0 on SIGTERM', async () => {
    const config = configFile('flow', `${model('main', llm.url, 'fake-main')}\n${model('other', llm.url, 'fake-other')}`);
    chat = new BinProcess(['chat', '--config', config], dir, cleanEnv(), { stdin: true });
    await chat.waitFor(/\/help lists the commands/);

    chat.type('x'.repeat(61));
    await chat.waitFor(/Message too long \(61 chars\)\. Please keep messages under 60 characters\./);
    assert.equal(llm.requests.length, 0, 'nothing of it reached the model');

    llm.enqueue(
      { toolCalls: [{ id: 'call_p1', name: 'plan', arguments: JSON.stringify({ prompt: 'add a health check' }) }] },
      { text: PLAN_A },
      { text: PLAN_B },
      { text: 'Plan approved; implementing it now.' },
    );
    chat.type('plan a health check');
    await chat.waitFor(/Approve\? \[y\/n\/a\(lways\)\/feedback\]/);
    chat.type('y');
    await chat.waitFor(/no health route yet[\s\S]*Approve the plan\?/);
    chat.type('also cover the metrics endpoint');
    await chat.waitFor(/request count on \/metrics[\s\S]*Approve the plan\?/);
    assert.match(JSON.stringify(llm.requests.at(-1)?.body), /also cover the metrics endpoint/);
    chat.type('y');
    await chat.waitFor(/Plan approved; implementing it now\./);
    assert.match(JSON.stringify(llm.requests.at(-1)?.body), /The user approved this plan/);

    chat.type('/model other');
    await chat.waitFor(/This thread now uses `other`/);
    llm.enqueue({ text: 'Answered by the other model.' });
    chat.type('and now?');
    await chat.waitFor(/Answered by the other model\./);
    assert.equal((llm.requests.at(-1)?.body as { model?: string }).model, 'fake-other');

    chat.type('/help');
    await chat.waitFor(/\/cancel\s+stop the running turn/);
    assert.doesNotMatch(chat.output, /"level"|sk-secret-chat-key/, 'no log line and no secret in the conversation');
    assert.equal(await chat.stop('SIGTERM'), 0);
  });

  it('shows the cause of a failed model call, without the key', async () => {
    const port = await closedPort();
    const config = configFile('unreachable', model('main', `http://127.0.0.1:${port}/v1`, 'fake-main'));
    chat = new BinProcess(['chat', '--config', config], dir, cleanEnv(), { stdin: true });
    await chat.waitFor(/\/help lists the commands/);
    chat.type('hello?');
    await chat.waitFor(new RegExp(`error: The model is unreachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)`), 60_000);
    assert.doesNotMatch(chat.output, /sk-secret-chat-key/);
    assert.equal(await chat.stop('SIGTERM'), 0);
  });
});
