/**
 * The admin HTTP API and the commands that call a running gateway (`mcp reload`, `admin token`, `audit` of what the
 * API changed). The gateway is the real bin (`start`); the commands run in this process through runCli, as the bin
 * runs them. The commands on the database alone are in `commands.*.test.ts`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mintAdminToken, mintServiceToken } from '../../src/gateway/http/auth.js';
import { EVERYTHING, freePort } from '../fakes/mcp-servers.js';
import { assertFailure, assertUsage, json, startAdminCli, type AdminCli } from '../helpers/admin-cli.js';
import { addPendingApproval, addUsage } from '../helpers/admin-seed.js';
import { BinProcess, cleanEnv } from '../helpers/run-bin.js';

const SECRET = 'admin-cli-test-secret-admin-cli-test-secret';
const ADMIN_SECRET = 'admin-cli-test-admin-secret-admin-cli-test';
const jwt = { secret: SECRET, audience: 'turnstone-channel' };
let adminUrl: string;
let admin: AdminCli;
const cli = (...args: string[]): ReturnType<AdminCli['cli']> => admin.cli(...args);

/** Two users (alice an admin with one token, bob), one pending approval of alice's, a day of bob's usage. */
before(async () => {
  adminUrl = `http://127.0.0.1:${await freePort()}`;
  admin = await startAdminCli('sp-admin-', [
    `[auth]\njwt_secret = "${SECRET}"\nadmin_secret = "${ADMIN_SECRET}"`,
    `[admin]\nlisten = "${adminUrl.slice('http://'.length)}"`,
  ]);
  assert.equal((await cli('user', 'add', 'alice', '--admin')).code, 0);
  assert.equal((await cli('user', 'add', 'bob')).code, 0);
  assert.equal((await cli('token', 'create', 'alice')).code, 0);
  await admin.withStores(async (stores) => {
    const calls = [{ name: 'bash', status: 'ask', item: { approvalLabel: 'bash' } }];
    await addPendingApproval(stores, { approvalId: 'ap1', wsId: 'ws1', turnId: 't1', owner: 'alice', calls });
    await addUsage(stores, 'bob');
  });
});
after(() => admin.close());

describe('admin against a running gateway', () => {
  let gateway: BinProcess;
  let url: string;
  let headers: Record<string, string>;

  before(async () => {
    // The gateway starts with no MCP server; the test adds one while it runs.
    gateway = new BinProcess(['start'], admin.dir, cleanEnv({ SANDPIPER_HTTP_PORT: String(await freePort()) }));
    url = (await gateway.waitFor(/http listening on (http:\/\/[0-9.:]+)/))[1] as string;
    headers = {
      authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:write'] })}`,
      'content-type': 'application/json',
    };
    await gateway.waitFor(/admin API listening on/);
  });
  after(async () => {
    await gateway.stop();
  });

  it('mcp reload connects a server added to the database and drops a removed one', async () => {
    await gateway.waitFor(/agent enabled|no model configured/);
    assert.equal((await cli('mcp', 'add', 'tools', '--command', 'node', '--', EVERYTHING, 'stdio')).code, 0);
    const reload = await cli('mcp', 'reload');
    assert.equal(reload.code, 0, reload.stderr);
    assert.match(reload.stdout, /^added: tools; removed: none; updated: none/);
    const health = (await (await fetch(`${url}/health`)).json()) as { mcp: { servers: number; tools: number } };
    assert.equal(health.mcp.servers, 1);
    assert.ok(health.mcp.tools > 0);
    assert.equal((await cli('mcp', 'remove', 'tools')).code, 0);
    const again = json<{ removed: string[] }>(await cli('mcp', 'reload', '--json'));
    assert.deepEqual(again.removed, ['tools']);
    assertUsage(await cli('mcp', 'reload', 'extra'), /usage: sandpiper mcp reload/);
  });

  it('serves every admin operation on the admin listener to admin tokens, and audits the changes', async () => {
    const get = async (route: string): Promise<Record<string, unknown[]>> => {
      const response = await fetch(`${adminUrl}${route}`, { headers });
      assert.equal(response.status, 200, route);
      return (await response.json()) as Record<string, unknown[]>;
    };
    assert.equal((await get('/v1/api/admin/users'))['users']?.length, 2);
    assert.equal((await get('/v1/api/admin/tokens?username=alice'))['tokens']?.length, 1);
    assert.equal((await get('/v1/api/admin/approvals'))['approvals']?.length, 1);
    assert.equal((await get('/v1/api/admin/mcp/servers'))['servers']?.length, 0);
    const { usage } = (await get('/v1/api/admin/usage?by=user&since=7d')) as {
      usage: Array<{ key: string; label: string; day: string; turns: number; input_tokens: number }>;
    };
    assert.deepEqual(
      usage.map((line) => [line.label, line.turns, line.input_tokens]),
      [['bob', 2, 1200]],
    );
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/usage?by=team`, { headers })).status, 400);
    const created = await fetch(`${adminUrl}/v1/api/admin/policies`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ pattern: 'edit_file', action: 'ask', priority: 3 }),
    });
    assert.equal(created.status, 201);
    const { policy } = (await created.json()) as { policy: { policy_id: string; created_by: string } };
    assert.equal(policy.created_by, 'api:ops');
    const bad = await fetch(`${adminUrl}/v1/api/admin/policies`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ pattern: 'x', action: 'sometimes' }),
    });
    assert.deepEqual([bad.status, await bad.json()], [400, { error: 'action: action must be allow, deny or ask' }]);
    const extra = await fetch(`${adminUrl}/v1/api/admin/policies`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ pattern: 'x', action: 'ask', colour: 'red' }),
    });
    assert.equal(extra.status, 400);
    assert.equal(
      (await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers, body: '[1]' })).status,
      400,
    );
    assert.equal(
      (await fetch(`${adminUrl}/v1/api/admin/policies/${policy.policy_id}`, { method: 'DELETE', headers })).status,
      200,
    );
    assert.equal(
      (await fetch(`${adminUrl}/v1/api/admin/policies/${policy.policy_id}`, { method: 'DELETE', headers })).status,
      404,
    );
    const server = { name: 'remote', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Key': 'hunter2' } };
    const added = await fetch(`${adminUrl}/v1/api/admin/mcp/servers`, {
      method: 'POST',
      headers,
      body: JSON.stringify(server),
    });
    assert.equal(added.status, 201);
    assert.ok(!(await added.text()).includes('hunter2'));
    assert.equal(
      (await fetch(`${adminUrl}/v1/api/admin/mcp/servers`, { method: 'POST', headers, body: JSON.stringify(server) }))
        .status,
      409,
    );
    assert.equal(
      (await fetch(`${adminUrl}/v1/api/admin/mcp/servers/remote`, { method: 'DELETE', headers })).status,
      200,
    );
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/tokens/nope`, { method: 'DELETE', headers })).status, 404);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`)).status, 401);
    const reader = {
      authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:read'] })}`,
    };
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`, { headers: reader })).status, 200);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/mcp/reload`, { method: 'POST', headers: reader })).status, 403);
    assert.equal(
      (
        await fetch(`${adminUrl}/v1/api/admin/policies`, {
          method: 'POST',
          headers: reader,
          body: '{"pattern":"*","action":"allow"}',
        })
      ).status,
      403,
    );
    const { audit } = json<{ audit: Array<{ actor: string; action: string; target: string; outcome: string }> }>(
      await cli('audit', '--json'),
    );
    const api = audit
      .filter((entry) => entry.actor === 'api:ops')
      .map((entry) => `${entry.action} ${entry.target} ${entry.outcome}`);
    assert.deepEqual(api.slice(0, 10).reverse(), [
      'policy.add edit_file ok',
      'policy.add x BAD_REQUEST',
      'policy.add x BAD_REQUEST',
      'policy.add  BAD_REQUEST',
      `policy.remove ${policy.policy_id} ok`,
      `policy.remove ${policy.policy_id} NOT_FOUND`,
      'mcp-server.add remote ok',
      'mcp-server.add remote CONFLICT',
      'mcp-server.remove remote ok',
      'token.revoke nope NOT_FOUND',
    ]);
    assert.ok(
      audit.some((entry) => /^cli:/.test(entry.actor) && entry.action === 'mcp-server.add' && entry.target === 'tools'),
      'CLI changes are audited too',
    );
    assert.ok(
      audit.some((entry) => /^api:cli:/.test(entry.actor) && entry.action === 'mcp.reload'),
      'the CLI reload is audited by the gateway',
    );
    assert.match((await cli('audit')).stdout, /^CREATED\s+ACTOR\s+ACTION\s+TARGET\s+OUTCOME\s+DETAIL\n/);
    assertUsage(await cli('audit', '--limit', 'many'), /limit must be a number/);
    const notifySigned = { authorization: `Bearer ${await mintServiceToken(jwt, { scopes: ['service'] })}` };
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`, { headers: notifySigned })).status, 401);
    const onMain = await fetch(`${url}/v1/api/admin/users`, { headers });
    assert.equal(onMain.status, 404, 'the main listener never serves the admin API');
    assert.match(((await onMain.json()) as { error: string }).error, /admin\.listen/);
  });

  it('admin token prints a short-lived token for scripts: read by default, write with --write, minting audited', async () => {
    const reader = await cli('admin', 'token');
    assert.equal(reader.code, 0, reader.stderr);
    assert.match(reader.stderr, /admin token \(admin:read, valid 15 min\)/);
    const read = { authorization: `Bearer ${reader.stdout.trim()}`, 'content-type': 'application/json' };
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`, { headers: read })).status, 200);
    assert.equal(
      (
        await fetch(`${adminUrl}/v1/api/admin/policies`, {
          method: 'POST',
          headers: read,
          body: '{"pattern":"*","action":"allow"}',
        })
      ).status,
      403,
    );
    const write = {
      authorization: `Bearer ${(await cli('admin', 'token', '--write', '--minutes', '5')).stdout.trim()}`,
      'content-type': 'application/json',
    };
    assert.equal(
      (
        await fetch(`${adminUrl}/v1/api/admin/policies`, {
          method: 'POST',
          headers: write,
          body: '{"pattern":"bash","action":"ask"}',
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await fetch(`${url}/v1/api/notify`, {
          method: 'POST',
          headers: write,
          body: '{"target":{"username":"bob"},"message":"x"}',
        })
      ).status,
      401,
      'an admin token opens no notify',
    );
    assertUsage(await cli('admin', 'token', '--minutes', '0'), /--minutes takes a whole number/);
    const { audit } = json<{ audit: Array<{ actor: string; action: string; detail: string }> }>(
      await cli('audit', '--json', '--limit', '3'),
    );
    assert.deepEqual(
      audit.map((entry) => [entry.action, entry.detail]),
      [
        ['policy.add', 'action=ask'],
        ['admin-token.mint', 'admin:write, 5 min'],
        ['admin-token.mint', 'admin:read, 15 min'],
      ],
    );
  });

  it('mcp reload without a running gateway fails on one line', async () => {
    const stopped = await gateway.stop();
    assert.equal(stopped, 0);
    assertFailure(await cli('mcp', 'reload'), /cannot reach the gateway/);
  });
});
