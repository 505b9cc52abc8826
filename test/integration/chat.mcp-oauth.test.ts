/**
 * `sandpiper chat` and a per-user OAuth MCP server: the terminal prints the sign-in link (it is private there); the
 * callback is served by a gateway on the same database, and the waiting call in the terminal goes on.
 */
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
import { startFakeOAuthMcpServer, type FakeOAuthMcpServer } from '../fakes/fake-oauth-mcp-server.js';
import { LinkInbox, PUBLIC_URL, TOKEN_KEY, callbackApp, startManager } from '../helpers/mcp-oauth.js';
import { createTestStores } from '../helpers/test-stores.js';
import { waitFor } from '../helpers/wait-for.js';

describe('sandpiper chat with an OAuth MCP server', () => {
  let llm: FakeLlmServer;
  let oauth: FakeOAuthMcpServer;
  let dir: string;

  before(async () => {
    [llm, oauth] = await Promise.all([startFakeLlmServer(), startFakeOAuthMcpServer()]);
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-chat-oauth-'));
  });

  after(async () => {
    await Promise.all([llm.close(), oauth.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the sign-in link, and the call goes on once a gateway on the same database takes the callback', async () => {
    const databaseUrl = `sqlite:${join(dir, 'chat.db')}`;
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: {
        'gateway.data_dir': dir,
        'database.url': databaseUrl,
        'gateway.public_url': PUBLIC_URL,
        'mcp.token_key': TOKEN_KEY,
        'mcp.servers.remote.type': 'http',
        'mcp.servers.remote.url': oauth.url,
        'mcp.servers.remote.auth': 'oauth',
        models: { main: { provider: 'openai', base_url: llm.url, api_key: 'sk-test', model: 'fake-model' } },
      },
    });
    llm.enqueue({ toolCalls: [{ name: 'mcp__remote__authorize', arguments: '{}' }] }, { text: 'You are signed in.' });
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const done = runChat({ config, input, output, logger: createSilentLogger() });
    input.write('use the tracker\n');
    const link = await waitFor(() => /needs your authorization[^\n]*\n(\S+)/.exec(printed)?.[1], 'the printed link');

    const db = await createTestStores({ url: databaseUrl });
    const gateway = startManager(oauth, db, new LinkInbox());
    try {
      const callback = await oauth.signIn(link, 'local');
      const response = await callbackApp(gateway).request(`${callback.pathname}${callback.search}`);
      assert.equal(response.status, 200);
      await waitFor(() => printed.includes('You are signed in.'), 'the answer after the sign-in');
      assert.match(printed, /Authorized\. remote offers: mcp__remote__whoami/);
    } finally {
      input.write('/quit\n');
      await done;
      await gateway.shutdown();
      await db.close();
    }
  });
});
