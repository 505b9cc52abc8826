/** Admin commands through the real bin (user/token/policy/mcp/approvals, --json, bad input) and their HTTP endpoints. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mintAdminToken, mintServiceToken } from '../../src/gateway/http/auth.js';
import { createKnex, createStores } from '../../src/storage/index.js';
import { EVERYTHING, freePort } from '../fakes/mcp-servers.js';
import { BinProcess, cleanEnv, runBin } from '../helpers/run-bin.js';

const SECRET = 'admin-cli-test-secret-admin-cli-test-secret';
const ADMIN_SECRET = 'admin-cli-test-admin-secret-admin-cli-test';
const jwt = { secret: SECRET, audience: 'turnstone-channel' };
let adminUrl: string;

let dir: string;
let env: NodeJS.ProcessEnv;
const run = (...args: string[]): ReturnType<typeof runBin> => runBin(args, dir, env);
const json = <T>(result: ReturnType<typeof runBin>): T => {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
};

/** A usage mistake: exit 2, one line on stderr matching `pattern`, nothing on stdout. */
function assertUsage(result: ReturnType<typeof runBin>, pattern: RegExp): void {
  assert.equal(result.code, 2, `${result.stdout}${result.stderr}`);
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
  assert.equal(result.stdout, '');
}

/** A runtime failure (not found, conflict): exit 1, one line. */
function assertFailure(result: ReturnType<typeof runBin>, pattern: RegExp): void {
  assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sp-admin-'));
  adminUrl = `http://127.0.0.1:${await freePort()}`;
  const toml = [
    `[gateway]\ndata_dir = "${path.join(dir, 'data')}"`,
    `[auth]\njwt_secret = "${SECRET}"\nadmin_secret = "${ADMIN_SECRET}"`,
    `[admin]\nlisten = "${adminUrl.slice('http://'.length)}"`,
  ];
  writeFileSync(path.join(dir, 'config.toml'), `${toml.join('\n\n')}\n`);
  env = cleanEnv();
  assert.equal(run('migrate').code, 0);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('admin commands on the database', () => {
  it('lists users with their admin flag and links, as a table and as JSON', () => {
    assert.match(run('user', 'list').stdout, /^no users/);
    assert.equal(run('user', 'add', 'alice', '--admin').code, 0);
    assert.equal(run('user', 'add', 'bob').code, 0);
    assert.equal(run('link', 'discord', '400000000000000001', 'bob').code, 0);
    const table = run('user', 'list');
    assert.equal(table.code, 0);
    assert.match(table.stdout, /^USERNAME\s+ADMIN\s+LINKS/);
    assert.match(table.stdout, /\nalice\s+yes\s+-/);
    const { users } = json<{ users: Array<{ username: string; is_admin: boolean; links: string[] }> }>(run('user', 'list', '--json'));
    assert.deepEqual(
      users.map((user) => [user.username, user.is_admin, user.links]),
      [['alice', true, []], ['bob', false, ['discord:400000000000000001']]],
    );
    assertUsage(run('user', 'list', 'extra'), /unexpected argument "extra"/);
  });

  it('lists tokens without revealing them and revokes one', () => {
    const created = run('token', 'create', 'bob', '--scopes', 'read', '--expires', '7');
    const token = created.stdout.trim().split('\n').pop() as string;
    assert.equal(run('token', 'create', 'alice').code, 0);
    const all = json<{ tokens: Array<{ token_id: string; username: string; scopes: string[]; expired: boolean }> }>(run('token', 'list', '--json'));
    assert.deepEqual(all.tokens.map((entry) => entry.username).sort(), ['alice', 'bob']);
    const bobs = json<{ tokens: Array<{ token_id: string; scopes: string[]; expires: string | null }> }>(run('token', 'list', 'bob', '--json'));
    assert.equal(bobs.tokens.length, 1);
    assert.deepEqual(bobs.tokens[0]?.scopes, ['read']);
    assert.match(bobs.tokens[0]?.expires ?? '', /^\d{4}-/);
    const table = run('token', 'list');
    assert.ok(!`${table.stdout}${JSON.stringify(all)}`.includes(token), 'the token itself is never shown');
    const tokenId = bobs.tokens[0]?.token_id as string;
    assert.match(table.stdout, new RegExp(`${tokenId}\\s+bob\\s+read`));
    assertFailure(run('token', 'list', 'nobody'), /no user named "nobody"/);
    assert.match(run('token', 'revoke', tokenId).stdout, new RegExp(`revoked token ${tokenId}`));
    assertFailure(run('token', 'revoke', tokenId), /no token with id/);
    assertUsage(run('token', 'revoke'), /usage: sandpiper token revoke TOKEN_ID/);
    assertUsage(run('token', 'revoke', 'bad id!'), /token_id must be the id shown by token list/);
    assert.match(run('token', 'list', 'bob').stdout, /^no tokens for bob/);
  });

  it('adds, lists (highest priority first) and removes tool policies, rejecting bad input', () => {
    const added = json<{ policy: { policy_id: string; action: string } }>(
      run('policy', 'add', 'mcp__github__*', 'deny', '--priority', '10', '--json'),
    );
    assert.equal(added.policy.action, 'deny');
    assert.match(run('policy', 'add', 'bash', 'allow', '--name', 'shell').stdout, /^added policy allow "bash" \(priority 0, id /);
    assert.equal(run('policy', 'add', 'web_*', 'ask', '--priority=-5').code, 0);
    const { policies } = json<{ policies: Array<{ pattern: string; priority: number; name: string }> }>(run('policy', 'list', '--json'));
    assert.deepEqual(policies.map((policy) => `${policy.priority}:${policy.pattern}`), ['10:mcp__github__*', '0:bash', '-5:web_*']);
    assert.match(run('policy', 'list').stdout, /^PRIORITY\s+ACTION\s+PATTERN/);
    assertUsage(run('policy', 'add', 'bash', 'maybe'), /action must be allow, deny or ask/);
    assertUsage(run('policy', 'add', 'bash', 'allow', '--priority', 'high'), /priority must be a whole number/);
    assertUsage(run('policy', 'add', 'bash', 'allow', '--priority', '1.5'), /priority must be a whole number/);
    assertUsage(run('policy', 'add', 'bash', 'allow', '--priority', '99999999'), /priority must be between/);
    assertUsage(run('policy', 'add', '  ', 'allow'), /usage: sandpiper policy add/);
    assertUsage(run('policy', 'add', 'bash'), /usage: sandpiper policy add/);
    assertUsage(run('policy', 'add', 'bash', 'allow', '--prio', '1'), /Unknown option '--prio'/);
    assert.match(run('policy', 'remove', 'shell').stdout, /^removed policy allow "bash"/);
    assert.equal(run('policy', 'remove', added.policy.policy_id).code, 0);
    assertFailure(run('policy', 'remove', 'shell'), /no policy with id or name "shell"/);
    assert.equal(json<{ policies: unknown[] }>(run('policy', 'list', '--json')).policies.length, 1);
    assert.match(run('policy', 'network').stdout, /^no network decisions/);
    assert.deepEqual(json<{ decisions: unknown[] }>(run('policy', 'network', '--json')).decisions, []);
  });

  it('defines MCP servers in the database without showing env or header values, rejecting bad input', () => {
    const stdio = run('mcp', 'add', 'tools', '--command', 'node', '--env', 'API_KEY=hunter2', '--', EVERYTHING, 'stdio');
    assert.equal(stdio.code, 0, stdio.stderr);
    assert.match(stdio.stdout, /^added MCP server tools \(stdio: node .*server-everything/);
    assert.match(stdio.stderr, /sandpiper mcp reload/);
    const http = json<{ server: { transport: string; header_keys: string[] } }>(
      run('mcp', 'add', 'web', '--url', 'http://127.0.0.1:1/mcp', '--header', 'Authorization=Bearer hunter2', '--auto-approve', '--json'),
    );
    assert.deepEqual([http.server.transport, http.server.header_keys], ['http', ['Authorization']]);
    const listed = run('mcp', 'list', '--json');
    const { servers } = json<{ servers: Array<{ name: string; env_keys: string[]; auto_approve: boolean; args: string[] }> }>(listed);
    assert.deepEqual(servers.map((server) => [server.name, server.env_keys, server.auto_approve]), [['tools', ['API_KEY'], false], ['web', [], true]]);
    assert.deepEqual(servers[0]?.args, [EVERYTHING, 'stdio']);
    assert.ok(!`${listed.stdout}${run('mcp', 'list').stdout}`.includes('hunter2'), 'env and header values stay hidden');
    assertUsage(run('mcp', 'add', 'bad__name', '--command', 'x'), /must not contain "__"/);
    assertUsage(run('mcp', 'add', 'none'), /give either command .* or url/);
    assertUsage(run('mcp', 'add', 'both', '--command', 'x', '--url', 'http://h/'), /give either command .* or url/);
    assertUsage(run('mcp', 'add', 'ftp', '--url', 'ftp://h/'), /url must start with http/);
    assertUsage(run('mcp', 'add', 'x', '--command', 'x', '--env', 'NOVALUE'), /--env takes KEY=VALUE/);
    assertUsage(run('mcp', 'add', 'x', '--command', 'x', '--header', 'A=b'), /headers apply to http servers only/);
    assertUsage(run('mcp', 'add'), /usage: sandpiper mcp add NAME/);
    assertFailure(run('mcp', 'add', 'web', '--url', 'http://127.0.0.1:2/mcp'), /already defined/);
    assert.match(run('mcp', 'remove', 'web').stdout, /^removed MCP server web/);
    assertFailure(run('mcp', 'remove', 'web'), /no MCP server named "web"/);
    assertUsage(run('mcp', 'remove'), /usage: sandpiper mcp remove NAME/);
  });

  it('lists pending approvals with their age and waiting tools', async () => {
    assert.match(run('approvals', 'list').stdout, /^no pending approvals/);
    const knex = createKnex(`sqlite:${path.join(dir, 'data', 'sandpiper.db')}`);
    try {
      const items = { version: 1, calls: [{ name: 'bash', status: 'ask', item: { approvalLabel: 'bash' } }, { name: 'read_file', status: 'run' }] };
      await createStores(knex).approvals.create({ approvalId: 'ap1', wsId: 'ws1', turnId: 't1', kind: 'tools', ownerUserId: (await createStores(knex).users.getUserByUsername('alice'))?.userId ?? '', items });
    } finally {
      await knex.destroy();
    }
    const { approvals } = json<{ approvals: Array<{ approval_id: string; tools: string[]; age_seconds: number }> }>(run('approvals', 'list', '--json'));
    assert.deepEqual(approvals.map((approval) => [approval.approval_id, approval.tools]), [['ap1', ['bash']]]);
    assert.ok(approvals[0] !== undefined && approvals[0].age_seconds >= 0);
    assert.match(run('approvals', 'list').stdout, /^AGE\s+APPROVAL_ID\s+OWNER.*\n\d+s\s+ap1\s+alice\s+ws1\s+tools\s+bash/);
  });

  it('adds, lists and revokes approval grants and shows who decided which approval', async () => {
    const added = json<{ grant: { grant_id: string; target: string; status: string } }>(
      run('approvals', 'grants', 'add', 'user', 'bob', 'bash', '--args', 'git *', '--expires', '7d', '--json'),
    );
    assert.deepEqual([added.grant.target, added.grant.status], ['bob', 'active']);
    assert.match(run('approvals', 'grants', 'list').stdout, new RegExp(`^GRANT_ID.*\\n${added.grant.grant_id}\\s+active\\s+user\\s+bob\\s+bash\\s+git \\*`));
    assertUsage(run('approvals', 'grants', 'add', 'team', 'bob', 'bash'), /scope must be conversation, user or channel/);
    assert.match(run('approvals', 'grants', 'revoke', added.grant.grant_id).stdout, /^revoked grant /);

    const knex = createKnex(`sqlite:${path.join(dir, 'data', 'sandpiper.db')}`);
    try {
      const stores = createStores(knex);
      const alice = (await stores.users.getUserByUsername('alice'))?.userId ?? '';
      const items = { version: 1, calls: [{ name: 'bash', status: 'ask', item: { approvalLabel: 'bash' } }] };
      await stores.approvals.create({ approvalId: 'ap2', wsId: 'ws2', turnId: 't2', kind: 'tools', ownerUserId: alice, items });
      await stores.approvals.resolve('ap2', { approved: true, always: true, feedback: null, decidedBy: alice });
      assert.equal((await stores.grants.list({ all: true, now: '2000-01-01T00:00:00' }))[0]?.revokedBy, 'cli');
    } finally {
      await knex.destroy();
    }
    assert.match(run('approvals', 'history').stdout, /^DECIDED\s+OUTCOME\s+DECIDED_BY.*\n\S+\s+always\s+alice\s+alice\s+tools\s+bash\s+ap2/);
  });
  it('usage lists tokens per user, model or conversation and day, and refuses a bad grouping or time', async () => {
    const knex = createKnex(`sqlite:${path.join(dir, 'data', 'sandpiper.db')}`);
    try {
      const stores = createStores(knex);
      const bob = (await stores.users.getUserByUsername('bob'))?.userId ?? '';
      await stores.workstreams.create({ wsId: 'ws-usage', userId: bob, name: 'Budget talk', modelAlias: 'm' });
      const today = new Date().toISOString().slice(0, 10);
      const usage = [
        { day: today, model: 'gpt-x', turns: 2, inputTokens: 1200, outputTokens: 80, cachedTokens: 300 },
        { day: '2000-01-01', model: 'gpt-x', turns: 1, inputTokens: 5, outputTokens: 5, cachedTokens: 0 },
      ];
      await stores.workstreams.applyChanges([{ wsId: 'ws-usage', usage }]);
    } finally {
      await knex.destroy();
    }
    const { usage } = json<{ usage: Array<{ key: string; label: string; turns: number; input_tokens: number; output_tokens: number }> }>(run('usage', '--json'));
    assert.deepEqual(usage.map((line) => [line.label, line.turns, line.input_tokens, line.output_tokens]), [['bob', 2, 1200, 80]]);
    assert.match(run('usage', '--by', 'conversation').stdout, /^DAY\s+KEY\s+LABEL\s+TURNS\s+INPUT\s+OUTPUT\s+CACHED\n\S+\s+ws-usage\s+Budget talk\s+2\s+1200\s+80\s+300/);
    const all = json<{ usage: Array<{ key: string; day: string }> }>(run('usage', '--by', 'model', '--since', '2000-01-01', '--json'));
    assert.deepEqual(all.usage.map((line) => line.key), ['gpt-x', 'gpt-x']);
    assertUsage(run('usage', '--by', 'team'), /by: /);
    assertUsage(run('usage', '--since', 'yesterday'), /since: /);
  });
});

describe('admin against a running gateway', () => {
  let gateway: BinProcess;
  let url: string;
  let headers: Record<string, string>;

  before(async () => {
    // The gateway starts with no MCP server; the test adds one while it runs.
    assert.equal(run('mcp', 'remove', 'tools').code, 0);
    const port = await freePort();
    env = cleanEnv({ SANDPIPER_HTTP_PORT: String(port) });
    gateway = new BinProcess(['start'], dir, env);
    url = (await gateway.waitFor(/http listening on (http:\/\/[0-9.:]+)/))[1] as string;
    headers = { authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:write'] })}`, 'content-type': 'application/json' };
    await gateway.waitFor(/admin API listening on/);
  });
  after(async () => {
    await gateway.stop();
  });

  it('mcp reload connects a server added to the database and drops a removed one', async () => {
    await gateway.waitFor(/agent enabled|no model configured/);
    assert.equal(run('mcp', 'add', 'tools', '--command', 'node', '--', EVERYTHING, 'stdio').code, 0);
    const reload = run('mcp', 'reload');
    assert.equal(reload.code, 0, reload.stderr);
    assert.match(reload.stdout, /^added: tools; removed: none; updated: none/);
    const health = (await (await fetch(`${url}/health`)).json()) as { mcp: { servers: number; tools: number } };
    assert.equal(health.mcp.servers, 1);
    assert.ok(health.mcp.tools > 0);
    assert.equal(run('mcp', 'remove', 'tools').code, 0);
    const again = json<{ removed: string[] }>(run('mcp', 'reload', '--json'));
    assert.deepEqual(again.removed, ['tools']);
    assertUsage(run('mcp', 'reload', 'extra'), /usage: sandpiper mcp reload/);
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
    const { usage } = (await get('/v1/api/admin/usage?by=user&since=7d')) as { usage: Array<{ key: string; label: string; day: string; turns: number; input_tokens: number }> };
    assert.deepEqual(usage.map((line) => [line.label, line.turns, line.input_tokens]), [['bob', 2, 1200]]);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/usage?by=team`, { headers })).status, 400);
    const created = await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers, body: JSON.stringify({ pattern: 'edit_file', action: 'ask', priority: 3 }) });
    assert.equal(created.status, 201);
    const { policy } = (await created.json()) as { policy: { policy_id: string; created_by: string } };
    assert.equal(policy.created_by, 'api:ops');
    const bad = await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers, body: JSON.stringify({ pattern: 'x', action: 'sometimes' }) });
    assert.deepEqual([bad.status, await bad.json()], [400, { error: 'action: action must be allow, deny or ask' }]);
    const extra = await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers, body: JSON.stringify({ pattern: 'x', action: 'ask', colour: 'red' }) });
    assert.equal(extra.status, 400);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers, body: '[1]' })).status, 400);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/policies/${policy.policy_id}`, { method: 'DELETE', headers })).status, 200);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/policies/${policy.policy_id}`, { method: 'DELETE', headers })).status, 404);
    const server = { name: 'remote', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Key': 'hunter2' } };
    const added = await fetch(`${adminUrl}/v1/api/admin/mcp/servers`, { method: 'POST', headers, body: JSON.stringify(server) });
    assert.equal(added.status, 201);
    assert.ok(!(await added.text()).includes('hunter2'));
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/mcp/servers`, { method: 'POST', headers, body: JSON.stringify(server) })).status, 409);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/mcp/servers/remote`, { method: 'DELETE', headers })).status, 200);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/tokens/nope`, { method: 'DELETE', headers })).status, 404);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`)).status, 401);
    const reader = { authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:read'] })}` };
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`, { headers: reader })).status, 200);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/mcp/reload`, { method: 'POST', headers: reader })).status, 403);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers: reader, body: '{"pattern":"*","action":"allow"}' })).status, 403);
    const { audit } = json<{ audit: Array<{ actor: string; action: string; target: string; outcome: string }> }>(run('audit', '--json'));
    const api = audit.filter((entry) => entry.actor === 'api:ops').map((entry) => `${entry.action} ${entry.target} ${entry.outcome}`);
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
    assert.ok(audit.some((entry) => /^cli:/.test(entry.actor) && entry.action === 'mcp-server.add' && entry.target === 'tools'), 'CLI changes are audited too');
    assert.ok(audit.some((entry) => /^api:cli:/.test(entry.actor) && entry.action === 'mcp.reload'), 'the CLI reload is audited by the gateway');
    assert.match(run('audit').stdout, /^CREATED\s+ACTOR\s+ACTION\s+TARGET\s+OUTCOME\s+DETAIL\n/);
    assertUsage(run('audit', '--limit', 'many'), /limit must be a number/);
    const notifySigned = { authorization: `Bearer ${await mintServiceToken(jwt, { scopes: ['service'] })}` };
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`, { headers: notifySigned })).status, 401);
    const onMain = await fetch(`${url}/v1/api/admin/users`, { headers });
    assert.equal(onMain.status, 404, 'the main listener never serves the admin API');
    assert.match(((await onMain.json()) as { error: string }).error, /admin\.listen/);
  });

  it('admin token prints a short-lived token for scripts: read by default, write with --write, minting audited', async () => {
    const reader = run('admin', 'token');
    assert.equal(reader.code, 0, reader.stderr);
    assert.match(reader.stderr, /admin token \(admin:read, valid 15 min\)/);
    const read = { authorization: `Bearer ${reader.stdout.trim()}`, 'content-type': 'application/json' };
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/users`, { headers: read })).status, 200);
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers: read, body: '{"pattern":"*","action":"allow"}' })).status, 403);
    const write = { authorization: `Bearer ${run('admin', 'token', '--write', '--minutes', '5').stdout.trim()}`, 'content-type': 'application/json' };
    assert.equal((await fetch(`${adminUrl}/v1/api/admin/policies`, { method: 'POST', headers: write, body: '{"pattern":"bash","action":"ask"}' })).status, 201);
    assert.equal((await fetch(`${url}/v1/api/notify`, { method: 'POST', headers: write, body: '{"target":{"username":"bob"},"message":"x"}' })).status, 401, 'an admin token opens no notify');
    assertUsage(run('admin', 'token', '--minutes', '0'), /--minutes takes a whole number/);
    const { audit } = json<{ audit: Array<{ actor: string; action: string; detail: string }> }>(run('audit', '--json', '--limit', '3'));
    assert.deepEqual(audit.map((entry) => [entry.action, entry.detail]), [['policy.add', 'action=ask'], ['admin-token.mint', 'admin:write, 5 min'], ['admin-token.mint', 'admin:read, 15 min']]);
  });

  it('mcp reload without a running gateway fails on one line', async () => {
    const stopped = await gateway.stop();
    assert.equal(stopped, 0);
    assertFailure(run('mcp', 'reload'), /cannot reach the gateway/);
  });
});
