/**
 * Per-user OAuth for a remote MCP server (docs/design/mcp-oauth.md), against a protected MCP server and a fake OAuth
 * authorization server built on the MCP SDK's server classes: each user authorizes through their own private link and
 * every call carries its caller's identity, across a restart and an access-token expiry; forged and replayed `state`s
 * authorize nothing; the database file never holds a raw token.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { toolContext } from '../fakes/mcp-servers.js';
import {
  PUBLIC_URL,
  authorizeInBrowser,
  call,
  callbackApp,
  outputText,
  startManager,
  useOAuthFixture,
} from '../helpers/mcp-oauth.js';

describe('MCP OAuth: two users, each with their own token', () => {
  const f = useOAuthFixture();
  let aliceState = '';

  it('tells the model the server needs authorization until someone authorizes', async () => {
    const { manager } = f;
    const names = (await manager.listTools()).map((tool) => tool.name);
    assert.deepEqual(names, ['mcp__remote__sign_out', 'mcp__remote__authorize']);
    assert.match(manager.systemPromptSection(), /remote: call mcp__remote__authorize/);
  });

  it('sends alice a private link, waits, and proceeds with her token once she authorizes', async () => {
    const { fake, inbox, manager } = f;
    const pending = call(manager, 'mcp__remote__authorize', 'alice');
    const link = await inbox.number(1);
    assert.equal(link.userId, 'alice');
    assert.equal(link.conversationId, 'ws-alice');
    const url = new URL(link.url);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('redirect_uri'), `${PUBLIC_URL}/v1/oauth/callback`);
    assert.equal(url.searchParams.get('resource'), fake.url);
    assert.ok((url.searchParams.get('state') ?? '').length >= 16);
    aliceState = await authorizeInBrowser(fake, manager, link, 'alice');
    const result = await pending;
    assert.equal(result.isError, false, outputText(result));
    assert.match(outputText(result), /mcp__remote__whoami/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
  });

  it('gives bob his own link and his calls carry his identity, alice keeps hers', async () => {
    const { fake, inbox, manager } = f;
    const pending = call(manager, 'mcp__remote__whoami', 'bob');
    const link = await inbox.number(2);
    assert.equal(link.userId, 'bob');
    await authorizeInBrowser(fake, manager, link, 'bob');
    assert.match(outputText(await pending), /user=bob/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    assert.equal(inbox.links.length, 2);
  });

  it('refuses a forged, a replayed and a missing state with a 4xx, authorizing nothing', async () => {
    const { manager } = f;
    const app = callbackApp(manager);
    const forged = await app.request('/v1/oauth/callback?state=forged-state-0123456789abcdef&code=some-code');
    const replayed = await app.request(`/v1/oauth/callback?state=${encodeURIComponent(aliceState)}&code=some-code`);
    const missing = await app.request('/v1/oauth/callback?code=some-code');
    assert.deepEqual([forged.status, replayed.status, missing.status], [400, 400, 400]);
    assert.doesNotMatch(await replayed.text(), /some-code/);
    assert.equal((await manager.listAuthorizations({})).length, 2);
  });

  it('refreshes an expired access token without a new link', async () => {
    const { fake, inbox, manager } = f;
    fake.expireAccessTokens();
    const before = fake.provider.refreshes;
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'bob')), /user=bob/);
    assert.ok(fake.provider.refreshes >= before + 2, `refreshes: ${fake.provider.refreshes}`);
    assert.equal(inbox.links.length, 2);
  });

  it('keeps both authorizations across a restart (catalog known, no new link)', async () => {
    const { fake, db, inbox } = f;
    await f.manager.shutdown();
    const manager = (f.manager = startManager(fake, db, inbox));
    await manager.start();
    assert.ok((await manager.listTools()).some((tool) => tool.name === 'mcp__remote__whoami'));
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'bob')), /user=bob/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    assert.equal(inbox.links.length, 2);
  });

  it('never writes a raw token into the database file', async () => {
    const { fake, db } = f;
    await db.stores.settleWrites?.();
    const file = db.url.replace(/^sqlite:/, '');
    const bytes = readdirSync(dirname(file))
      .map((name) => readFileSync(join(dirname(file), name)).toString('latin1'))
      .join('');
    const secrets = fake.issuedSecrets();
    assert.ok(secrets.length >= 4);
    for (const secret of secrets) assert.equal(bytes.includes(secret), false, 'a raw token is in the database file');
    assert.ok((await db.stores.mcpCredentials.list({})).length >= 3);
  });

  it('lets a user sign out from chat: their next call asks for a new link, the other user is untouched', async () => {
    const { fake, inbox, manager } = f;
    assert.match(outputText(await call(manager, 'mcp__remote__sign_out', 'bob')), /Signed out of remote/);
    assert.deepEqual(
      (await manager.listAuthorizations({ server: 'remote' })).map((entry) => entry.userId),
      ['alice'],
    );
    const pending = call(manager, 'mcp__remote__whoami', 'bob');
    const link = await inbox.number(3);
    assert.equal(link.userId, 'bob');
    await authorizeInBrowser(fake, manager, link, 'bob');
    assert.match(outputText(await pending), /user=bob/);
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
  });

  it('a waiting call does not hold up other users, and is cancelable', async () => {
    const { inbox, manager } = f;
    const controller = new AbortController();
    const pending = manager.callTool(
      'mcp__remote__whoami',
      {},
      toolContext({ workstreamId: 'ws-carol', signal: controller.signal }),
    );
    assert.equal((await inbox.number(4)).userId, 'carol');
    assert.match(outputText(await call(manager, 'mcp__remote__whoami', 'alice')), /user=alice/);
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
  });

  it('a declined authorization ends the waiting call with a clear error', async () => {
    const { inbox, manager } = f;
    const pending = call(manager, 'mcp__remote__whoami', 'dave');
    const link = await inbox.number(5);
    const state = new URL(link.url).searchParams.get('state') ?? '';
    const response = await callbackApp(manager).request(
      `/v1/oauth/callback?state=${encodeURIComponent(state)}&error=access_denied`,
    );
    assert.equal(response.status, 400);
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(outputText(result), /declined/);
  });
});
