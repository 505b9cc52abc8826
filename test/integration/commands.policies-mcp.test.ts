/**
 * `policy add | list | remove | network` and `mcp add | list | remove` in-process (runCli, as the bin runs them) on a
 * fresh database: ordering, env and header values kept hidden, every bad input exit 2 on one line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING } from '../fakes/mcp-servers.js';
import { assertFailure, assertUsage, json, startAdminCli, type AdminCli } from '../helpers/admin-cli.js';

let admin: AdminCli;
const cli = (...args: string[]): ReturnType<AdminCli['cli']> => admin.cli(...args);

before(async () => {
  admin = await startAdminCli('sp-admin-policies-');
});
after(() => admin.close());

describe('policy and MCP server commands', () => {
  it('adds, lists (highest priority first) and removes tool policies, rejecting bad input', async () => {
    const added = json<{ policy: { policy_id: string; action: string } }>(
      await cli('policy', 'add', 'mcp__github__*', 'deny', '--priority', '10', '--json'),
    );
    assert.equal(added.policy.action, 'deny');
    assert.match(
      (await cli('policy', 'add', 'bash', 'allow', '--name', 'shell')).stdout,
      /^added policy allow "bash" \(priority 0, id /,
    );
    assert.equal((await cli('policy', 'add', 'web_*', 'ask', '--priority=-5')).code, 0);
    const { policies } = json<{ policies: Array<{ pattern: string; priority: number; name: string }> }>(
      await cli('policy', 'list', '--json'),
    );
    assert.deepEqual(
      policies.map((policy) => `${policy.priority}:${policy.pattern}`),
      ['10:mcp__github__*', '0:bash', '-5:web_*'],
    );
    assert.match((await cli('policy', 'list')).stdout, /^PRIORITY\s+ACTION\s+PATTERN/);
    assertUsage(await cli('policy', 'add', 'bash', 'maybe'), /action must be allow, deny or ask/);
    assertUsage(await cli('policy', 'add', 'bash', 'allow', '--priority', 'high'), /priority must be a whole number/);
    assertUsage(await cli('policy', 'add', 'bash', 'allow', '--priority', '1.5'), /priority must be a whole number/);
    assertUsage(await cli('policy', 'add', 'bash', 'allow', '--priority', '99999999'), /priority must be between/);
    assertUsage(await cli('policy', 'add', '  ', 'allow'), /usage: sandpiper policy add/);
    assertUsage(await cli('policy', 'add', 'bash'), /usage: sandpiper policy add/);
    assertUsage(await cli('policy', 'add', 'bash', 'allow', '--prio', '1'), /Unknown option '--prio'/);
    assert.match((await cli('policy', 'remove', 'shell')).stdout, /^removed policy allow "bash"/);
    assert.equal((await cli('policy', 'remove', added.policy.policy_id)).code, 0);
    assertFailure(await cli('policy', 'remove', 'shell'), /no policy with id or name "shell"/);
    assert.equal(json<{ policies: unknown[] }>(await cli('policy', 'list', '--json')).policies.length, 1);
    assert.match((await cli('policy', 'network')).stdout, /^no network decisions/);
    assert.deepEqual(json<{ decisions: unknown[] }>(await cli('policy', 'network', '--json')).decisions, []);
  });

  it('defines MCP servers in the database without showing env or header values, rejecting bad input', async () => {
    const stdio = await cli(
      'mcp',
      'add',
      'tools',
      '--command',
      'node',
      '--env',
      'API_KEY=hunter2',
      '--',
      EVERYTHING,
      'stdio',
    );
    assert.equal(stdio.code, 0, stdio.stderr);
    assert.match(stdio.stdout, /^added MCP server tools \(stdio: node .*server-everything/);
    assert.match(stdio.stderr, /sandpiper mcp reload/);
    const http = json<{ server: { transport: string; header_keys: string[] } }>(
      await cli(
        'mcp',
        'add',
        'web',
        '--url',
        'http://127.0.0.1:1/mcp',
        '--header',
        'Authorization=Bearer hunter2',
        '--auto-approve',
        '--json',
      ),
    );
    assert.deepEqual([http.server.transport, http.server.header_keys], ['http', ['Authorization']]);
    const listed = await cli('mcp', 'list', '--json');
    const { servers } = json<{
      servers: Array<{ name: string; env_keys: string[]; auto_approve: boolean; args: string[] }>;
    }>(listed);
    assert.deepEqual(
      servers.map((server) => [server.name, server.env_keys, server.auto_approve]),
      [
        ['tools', ['API_KEY'], false],
        ['web', [], true],
      ],
    );
    assert.deepEqual(servers[0]?.args, [EVERYTHING, 'stdio']);
    assert.ok(
      !`${listed.stdout}${(await cli('mcp', 'list')).stdout}`.includes('hunter2'),
      'env and header values stay hidden',
    );
    assertUsage(await cli('mcp', 'add', 'bad__name', '--command', 'x'), /must not contain "__"/);
    assertUsage(await cli('mcp', 'add', 'none'), /give either command .* or url/);
    assertUsage(
      await cli('mcp', 'add', 'both', '--command', 'x', '--url', 'http://h/'),
      /give either command .* or url/,
    );
    assertUsage(await cli('mcp', 'add', 'ftp', '--url', 'ftp://h/'), /url must start with http/);
    assertUsage(await cli('mcp', 'add', 'x', '--command', 'x', '--env', 'NOVALUE'), /--env takes KEY=VALUE/);
    assertUsage(
      await cli('mcp', 'add', 'x', '--command', 'x', '--header', 'A=b'),
      /headers apply to http servers only/,
    );
    assertUsage(await cli('mcp', 'add'), /usage: sandpiper mcp add NAME/);
    assertFailure(await cli('mcp', 'add', 'web', '--url', 'http://127.0.0.1:2/mcp'), /already defined/);
    assert.match((await cli('mcp', 'remove', 'web')).stdout, /^removed MCP server web/);
    assertFailure(await cli('mcp', 'remove', 'web'), /no MCP server named "web"/);
    assertUsage(await cli('mcp', 'remove'), /usage: sandpiper mcp remove NAME/);
  });
});
