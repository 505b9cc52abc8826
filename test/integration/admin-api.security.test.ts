/**
 * The admin API's least privilege through the real composition root (ADR 0035): a token signed with the notify secret
 * opens no admin route whatever its scopes; admin routes are not reachable on a non-loopback address by default; an
 * MCP server added through the API runs in the tool sandbox and cannot read the config file or the database, and is
 * refused where there is no sandbox unless the config file allows it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { detectSandbox } from '../../src/agent/sandbox/detect-sandbox.js';
import { mintAdminToken, mintServiceToken } from '../../src/gateway/http/auth.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const NOTIFY_SECRET = 'security-notify-secret-security-notify-secret';
const ADMIN_SECRET = 'security-admin-secret-security-admin-secret-xx';
const notifyJwt = { secret: NOTIFY_SECRET, audience: 'turnstone-channel' };

const ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/v1/api/admin/status'],
  ['GET', '/v1/api/admin/users'],
  ['GET', '/v1/api/admin/tokens'],
  ['DELETE', '/v1/api/admin/tokens/some-id'],
  ['GET', '/v1/api/admin/policies'],
  ['POST', '/v1/api/admin/policies'],
  ['DELETE', '/v1/api/admin/policies/some-id'],
  ['GET', '/v1/api/admin/mcp/servers'],
  ['POST', '/v1/api/admin/mcp/servers'],
  ['DELETE', '/v1/api/admin/mcp/servers/x'],
  ['GET', '/v1/api/admin/approvals'],
  ['GET', '/v1/api/admin/audit'],
  ['GET', '/v1/api/admin/usage'],
  ['GET', '/v1/api/admin/mcp'],
  ['POST', '/v1/api/admin/mcp/refresh'],
  ['POST', '/v1/api/admin/mcp/reconnect'],
  ['POST', '/v1/api/admin/mcp/reload'],
];

/** An IPv4 address of this machine other than loopback, or undefined. */
function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;
}

const adminHeaders = async (): Promise<Record<string, string>> => ({
  authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:write'] })}`,
  'content-type': 'application/json',
});

async function startWith(configToml: string, flags: Record<string, unknown> = {}): Promise<TestGateway> {
  const llm = await startFakeLlmServer();
  return startTestGateway({ llm, jwtSecret: NOTIFY_SECRET, configToml: `[auth]\nadmin_secret = "${ADMIN_SECRET}"\n${configToml}`, flags });
}

describe('the admin API against the notify secret and the network', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await startWith('', { 'gateway.http_host': '0.0.0.0' });
  });
  after(() => gateway?.close());

  it('refuses a token signed with the notify secret on every admin route, whatever its scopes', async () => {
    const scopeSets = [['read'], ['write'], ['approve'], ['service'], ['admin:read', 'admin:write'], ['service', 'admin:write']];
    for (const scopes of scopeSets) {
      const headers = { authorization: `Bearer ${await mintServiceToken(notifyJwt, { scopes })}`, 'content-type': 'application/json' };
      for (const [method, route] of ROUTES) {
        const body = method === 'POST' ? JSON.stringify({ name: 'x', command: 'sh', pattern: '*', action: 'allow', server: 'x' }) : undefined;
        const response = await fetch(`${gateway.adminUrl}${route}`, { method, headers, ...(body ? { body } : {}) });
        assert.equal(response.status, 401, `${method} ${route} with ${scopes.join(',')}`);
        const onMain = await fetch(`${gateway.url.replace('0.0.0.0', '127.0.0.1')}${route}`, { method, headers, ...(body ? { body } : {}) });
        assert.equal(onMain.status, 404, `${method} ${route} on the main listener`);
      }
    }
    const audit = await fetch(`${gateway.adminUrl}/v1/api/admin/audit`, { headers: await adminHeaders() });
    assert.deepEqual(((await audit.json()) as { audit: unknown[] }).audit, [], 'nothing was changed');
    const policies = await fetch(`${gateway.adminUrl}/v1/api/admin/policies`, { headers: await adminHeaders() });
    assert.deepEqual(((await policies.json()) as { policies: unknown[] }).policies, []);
  });

  it('is not reachable on a non-loopback address by default, even with the main listener on 0.0.0.0', async (t) => {
    const address = nonLoopbackAddress();
    if (address === undefined) {
      t.skip('this machine has no non-loopback IPv4 address to connect from');
      return;
    }
    const mainPort = new URL(gateway.url).port;
    const adminPort = new URL(gateway.adminUrl ?? '').port;
    assert.match(gateway.adminUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const headers = await adminHeaders();
    assert.equal((await fetch(`http://${address}:${mainPort}/health`)).status, 200, 'the main listener faces the network');
    assert.equal((await fetch(`http://${address}:${mainPort}/v1/api/admin/status`, { headers })).status, 404);
    await assert.rejects(fetch(`http://${address}:${adminPort}/v1/api/admin/status`, { headers }), 'nothing listens there off loopback');
    assert.equal((await fetch(`${gateway.adminUrl}/v1/api/admin/status`, { headers })).status, 200);
  });
});

describe('MCP servers added through the admin API', () => {
  it('run in the tool sandbox: the command cannot read the config file or the database', async (t) => {
    if ((await detectSandbox({ mode: 'auto' })).kind !== 'bwrap') {
      t.skip('bubblewrap is not usable on this machine');
      return;
    }
    const gateway = await startWith('');
    try {
      const config = path.join(gateway.dir, 'config.toml');
      const database = gateway.databaseUrl.slice('sqlite:'.length);
      const out = path.join(gateway.dir, 'mcp', 'probe', 'probe.txt');
      const script = `id > ${out}; cat ${config} >> ${out} 2>&1; head -c 64 ${database} >> ${out} 2>&1; echo done >> ${out}`;
      const probe = await runProbe(gateway, script);
      assert.match(probe, /done/, 'the command ran');
      assert.doesNotMatch(probe, new RegExp(ADMIN_SECRET), 'the config file is hidden');
      assert.doesNotMatch(probe, /SQLite format/, 'the database is hidden');
      assert.ok(readFileSync(config, 'utf8').includes(ADMIN_SECRET) && readFileSync(database).includes('SQLite format'), 'both exist outside');
    } finally {
      await gateway.close();
    }
  });

  it('are refused where there is no sandbox, unless the config file allows unsandboxed runtime servers', async () => {
    const refusing = await startWith('[tools]\nsandbox = "off"\n');
    try {
      const answer = await addAndReload(refusing, 'echo ran > probe.txt');
      assert.deepEqual(answer.failed, ['probe']);
      assert.equal(existsSync(path.join(refusing.dir, 'mcp', 'probe', 'probe.txt')), false, 'the command never ran');
    } finally {
      await refusing.close();
    }
    const allowing = await startWith('[tools]\nsandbox = "off"\n\n[mcp]\nallow_unsandboxed_runtime_servers = true\n');
    try {
      assert.match(await runProbe(allowing, `echo ran > ${path.join(allowing.dir, 'probe.txt')}`, allowing.dir), /ran/);
    } finally {
      await allowing.close();
    }
  });
});

/** Adds a stdio server `probe` running `sh -c script` through the admin API, then reloads MCP. */
async function addAndReload(gateway: TestGateway, script: string): Promise<{ failed: string[] }> {
  const headers = await adminHeaders();
  const added = await fetch(`${gateway.adminUrl}/v1/api/admin/mcp/servers`, { method: 'POST', headers, body: JSON.stringify({ name: 'probe', command: 'sh', args: ['-c', script] }) });
  assert.equal(added.status, 201, await added.clone().text());
  await waitFor(async () => (await (await fetch(`${gateway.url}/health`)).json() as { mcp?: unknown }).mcp !== undefined, 'health');
  const reload = await fetch(`${gateway.adminUrl}/v1/api/admin/mcp/reload`, { method: 'POST', headers, body: '{}' });
  assert.equal(reload.status, 200, await reload.clone().text());
  return (await reload.json()) as { failed: string[] };
}

/** Runs `script` as a runtime MCP server and returns what it wrote to probe.txt (in its folder, or `cwd` when given). */
async function runProbe(gateway: TestGateway, script: string, cwd?: string): Promise<string> {
  await addAndReload(gateway, script);
  const file = path.join(cwd ?? path.join(gateway.dir, 'mcp', 'probe'), 'probe.txt');
  await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').trim() !== '', 'probe.txt');
  return readFileSync(file, 'utf8');
}
