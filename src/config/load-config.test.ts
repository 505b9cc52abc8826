import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError } from '../shared/errors.js';
import { loadConfig } from './load-config.js';
import { packageRoot } from '../shared/package-root.js';

// The repository, also when the test runs as a compiled copy (scripts/run-tests.mjs).
const root = packageRoot(import.meta.url);

const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempConfig(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sp-config-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'config.toml');
  writeFileSync(file, text);
  return { dir, file };
}

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return [...error.issues];
  }
  assert.fail('expected a configuration error');
}

/** A directory without a config.toml (the shared temp directory might have one). */
function emptyDir(): string {
  return path.join(tempConfig('').dir, 'empty');
}

describe('loadConfig', () => {
  it('refuses native tool search forced on for an OpenAI model (Chat Completions has no deferred loading)', () => {
    const { file, dir } = tempConfig(
      '[models.main]\nprovider = "openai"\nmodel = "gpt-4.1"\nnative_tool_search = "on"\n',
    );
    const issues = issuesOf(() => loadConfig({ file, cwd: dir, env: {} }));
    assert.ok(
      issues.some(
        (issue) => issue.includes('models.main.native_tool_search') && issue.includes('no native tool search'),
      ),
      issues.join('\n'),
    );
  });

  it('gives every default when no file and no environment are present, with data in the platform state folder', () => {
    const { dir } = tempConfig('');
    const config = loadConfig({ cwd: path.join(dir, 'nowhere'), env: { HOME: path.join(dir, 'home') } });
    assert.equal(config.gateway.http_host, '127.0.0.1');
    assert.equal(config.gateway.http_port, 8091);
    assert.equal(config.gateway.shutdown_timeout_s, 20);
    assert.equal(config.auth.jwt_audience, 'turnstone-channel');
    const state = path.join(dir, 'home', '.local', 'state', 'sandpiper');
    assert.equal(config.database.url, `sqlite:${path.join(state, 'sandpiper.db')}`);
    assert.equal(config.agent.workspace_dir, path.join(state, 'workspaces'));
    assert.ok(Object.isFrozen(config.gateway));
    const xdg = loadConfig({
      cwd: path.join(dir, 'nowhere'),
      env: { HOME: '/nonexistent', XDG_STATE_HOME: path.join(dir, 'xdg') },
    });
    assert.equal(xdg.gateway.data_dir, path.join(dir, 'xdg', 'sandpiper'));
  });

  it("resolves data_dir and relative paths in the file against the file's folder, never the current folder", () => {
    const { dir, file } = tempConfig('[agent]\nworkspace_dir = "ws"\n');
    const elsewhere = path.join(dir, 'elsewhere');
    const config = loadConfig({ file, cwd: elsewhere, env: {} });
    assert.equal(config.gateway.data_dir, path.join(dir, 'data'));
    assert.equal(config.database.url, `sqlite:${path.join(dir, 'data', 'sandpiper.db')}`);
    assert.equal(config.agent.workspace_dir, path.join(dir, 'ws'));
    writeFileSync(file, '[gateway]\ndata_dir = "state"\n[database]\nurl = "sqlite:db/x.db"\n');
    const relative = loadConfig({ file, cwd: elsewhere, env: {} });
    assert.equal(relative.gateway.data_dir, path.join(dir, 'state'));
    assert.equal(relative.database.url, `sqlite:${path.join(dir, 'db', 'x.db')}`);
    const fromEnv = loadConfig({ file, cwd: elsewhere, env: { SANDPIPER_DATA_DIR: 'here' } });
    assert.equal(
      fromEnv.gateway.data_dir,
      path.join(elsewhere, 'here'),
      'a variable is relative to the current folder',
    );
  });

  it('lets environment variables win over the file and flags win over both', () => {
    const { file } = tempConfig('[gateway]\nhttp_port = 9000\n[log]\nlevel = "warn"\n');
    const config = loadConfig({
      file,
      env: { SANDPIPER_HTTP_PORT: '9100', SANDPIPER_LOG_LEVEL: 'error' },
      flags: { 'log.level': 'debug' },
    });
    assert.equal(config.gateway.http_port, 9100);
    assert.equal(config.log.level, 'debug');
  });

  it('fills a model api_key from the provider variable only when the file has none', () => {
    const { file } = tempConfig(
      '[models.a]\nprovider = "openai"\nmodel = "m"\n[models.b]\nprovider = "anthropic"\nmodel = "c"\napi_key = "file-key"\n',
    );
    const config = loadConfig({ file, env: { OPENAI_API_KEY: 'env-openai', ANTHROPIC_API_KEY: 'env-anthropic' } });
    assert.equal(config.models['a']?.api_key, 'env-openai');
    assert.equal(config.models['b']?.api_key, 'file-key');
    assert.equal(config.agent.default_model, 'a');
  });

  it('names an unknown key, an unknown table and the file', () => {
    const { file } = tempConfig('[discord]\ntokn = "x"\n[nonsense]\na = 1\n');
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.ok(issues.some((issue) => issue.includes('discord.tokn') && issue.includes(file)));
    assert.ok(issues.some((issue) => issue.includes('unknown key nonsense')));
  });

  it('refuses the removed tools.sandbox_network and names what replaced it', () => {
    const { file } = tempConfig('[tools]\nsandbox_network = true\n');
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.equal(issues.length, 1);
    assert.match(issues[0] ?? '', /unknown key tools\.sandbox_network .*set tools\.network = "ask"/);
  });

  it('checks the egress allowlist entries', () => {
    const good = loadConfig({
      file: tempConfig(
        '[tools]\nnetwork = "ask"\nnetwork_allow = ["pypi.org", "*.github.com:443"]\nnetwork_internal = ["mirror.lan:8080"]\n',
      ).file,
      env: {},
    });
    assert.deepEqual(good.tools.network_allow, ['pypi.org', '*.github.com:443']);
    const issues = issuesOf(() =>
      loadConfig({
        file: tempConfig(
          '[tools]\nnetwork = "host"\nnetwork_allow = ["http://pypi.org/"]\nnetwork_internal = ["*.lan:80"]\n',
        ).file,
        env: {},
      }),
    );
    assert.deepEqual(issues.map((issue) => issue.split(':')[0]).sort(), [
      'tools.network',
      'tools.network_allow.0',
      'tools.network_internal.0',
    ]);
  });

  it('names the key and the variable for a wrong type from the environment', () => {
    const issues = issuesOf(() =>
      loadConfig({ file: undefined, cwd: emptyDir(), env: { SANDPIPER_HTTP_PORT: 'eighty' } }),
    );
    assert.equal(issues.length, 1);
    assert.match(issues[0] as string, /gateway\.http_port: .*SANDPIPER_HTTP_PORT/);
  });

  it('rejects only one of the two Slack tokens', () => {
    const { file } = tempConfig('[slack]\nbot_token = "xoxb-1"\n');
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.ok(issues.some((issue) => issue.startsWith('slack.app_token:')));
  });

  it('rejects a lease TTL that would not survive one missed heartbeat, and shard ids past the shard count', () => {
    const { file } = tempConfig(
      '[cluster]\nheartbeat_s = 10\nlease_ttl_s = 15\n[discord]\nshard_count = 2\nshards = [0, 2]\n',
    );
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.ok(
      issues.some((issue) => issue.startsWith('cluster.lease_ttl_s:')),
      issues.join('\n'),
    );
    assert.ok(
      issues.some((issue) => issue.startsWith('discord.shards:')),
      issues.join('\n'),
    );
  });

  it('rejects a default model that is not an alias', () => {
    const issues = issuesOf(() => loadConfig({ cwd: emptyDir(), env: { SANDPIPER_MODEL: 'ghost' } }));
    assert.ok(issues.some((issue) => issue.startsWith('agent.default_model:')));
  });

  it('reports invalid TOML with the file and line, without the file content', () => {
    const { file } = tempConfig('[gateway]\nhttp_port = = 1\njwt_secret = "hunter2"\n');
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.match(issues[0] as string, /invalid TOML/);
    assert.ok(!issues.join(' ').includes('hunter2'));
  });

  it('lets each documented environment variable override its key from the file', () => {
    const { file } = tempConfig(
      [
        '[gateway]\nhttp_host = "10.0.0.1"\nhttp_port = 9000\nadvertise_url = "http://file:1"\ndata_dir = "/file/data"',
        '[database]\nurl = "sqlite:/file/db"',
        '[auth]\njwt_secret = "file-secret"',
        '[models.a]\nprovider = "openai"\nmodel = "m"\n[models.b]\nprovider = "anthropic"\nmodel = "c"',
        '[agent]\ndefault_model = "a"',
        '[tools]\ntavily_api_key = "file-tavily"',
        '[discord]\ntoken = "file-discord"',
        '[slack]\nbot_token = "file-bot"\napp_token = "file-app"',
        '[log]\nlevel = "warn"\nformat = "pretty"',
      ].join('\n'),
    );
    const env = {
      SANDPIPER_HTTP_HOST: '0.0.0.0',
      SANDPIPER_HTTP_PORT: '9100',
      SANDPIPER_ADVERTISE_URL: 'http://env:2',
      SANDPIPER_DATA_DIR: '/env/data',
      SANDPIPER_DATABASE_URL: 'postgres://env/db',
      SANDPIPER_JWT_SECRET: 'env-secret',
      SANDPIPER_MODEL: 'b',
      OPENAI_API_KEY: 'env-openai',
      ANTHROPIC_API_KEY: 'env-anthropic',
      TAVILY_API_KEY: 'env-tavily',
      SANDPIPER_DISCORD_TOKEN: 'env-discord',
      SANDPIPER_SLACK_BOT_TOKEN: 'env-bot',
      SANDPIPER_SLACK_APP_TOKEN: 'env-app',
      SANDPIPER_LOG_LEVEL: 'error',
      SANDPIPER_LOG_FORMAT: 'json',
    };
    const config = loadConfig({ file, env });
    assert.deepEqual(
      [config.gateway.http_host, config.gateway.http_port, config.gateway.advertise_url, config.gateway.data_dir],
      ['0.0.0.0', 9100, 'http://env:2', '/env/data'],
    );
    assert.equal(config.database.url, 'postgres://env/db');
    assert.equal(config.auth.jwt_secret, 'env-secret');
    assert.equal(config.agent.default_model, 'b');
    assert.deepEqual([config.models['a']?.api_key, config.models['b']?.api_key], ['env-openai', 'env-anthropic']);
    assert.equal(config.tools.tavily_api_key, 'env-tavily');
    assert.equal(config.discord.token, 'env-discord');
    assert.deepEqual([config.slack.bot_token, config.slack.app_token], ['env-bot', 'env-app']);
    assert.deepEqual([config.log.level, config.log.format], ['error', 'json']);
  });

  it('names the variable as the source of a bad value from each environment variable', () => {
    const cases: Array<[string, string, string]> = [
      ['SANDPIPER_HTTP_PORT', '-1', 'gateway.http_port'],
      ['SANDPIPER_HTTP_HOST', '', ''],
      ['SANDPIPER_ADVERTISE_URL', 'not a url', 'gateway.advertise_url'],
      ['SANDPIPER_DATABASE_URL', 'mysql://root:pw@h/db', 'database.url'],
      ['SANDPIPER_MODEL', 'ghost', 'agent.default_model'],
      ['SANDPIPER_LOG_LEVEL', 'loud', 'log.level'],
      ['SANDPIPER_LOG_FORMAT', 'xml', 'log.format'],
    ];
    for (const [variable, value, key] of cases) {
      if (key === '') {
        // An empty variable counts as unset.
        assert.equal(loadConfig({ cwd: emptyDir(), env: { [variable]: value } }).gateway.http_host, '127.0.0.1');
        continue;
      }
      const issues = issuesOf(() => loadConfig({ cwd: emptyDir(), env: { [variable]: value } }));
      assert.equal(issues.length, 1, issues.join('; '));
      assert.ok(issues[0]?.startsWith(`${key}: `), issues[0]);
      assert.ok(issues[0]?.endsWith(`(environment variable ${variable})`), issues[0]);
    }
  });

  it('says "not set" for a required key that is missing, not the file or a default', () => {
    const issues = issuesOf(() => loadConfig({ cwd: emptyDir(), env: { SANDPIPER_SLACK_BOT_TOKEN: 'xoxb-1' } }));
    assert.deepEqual(
      issues.map((issue) => issue.replace(/:.*\(/, ' (')),
      ['slack.app_token (not set)'],
    );
  });

  it('fails clearly when --config names a missing file', () => {
    const issues = issuesOf(() => loadConfig({ file: '/nonexistent/sandpiper.toml', env: {} }));
    assert.match(issues[0] as string, /config file not found/);
  });
});

describe('the admin credential and listener (ADR 0035)', () => {
  const NOTIFY = 'n'.repeat(40);
  const load = (text: string, env: Record<string, string> = {}) => loadConfig({ file: tempConfig(text).file, env });

  it('is off by default and listens on loopback when a secret is set (also from SANDPIPER_ADMIN_SECRET)', () => {
    const off = load('');
    assert.deepEqual(
      [off.auth.admin_secret, off.admin.listen, off.mcp.allow_unsandboxed_runtime_servers],
      ['', '127.0.0.1:8191', false],
    );
    assert.equal(load('', { SANDPIPER_ADMIN_SECRET: 'a'.repeat(32) }).auth.admin_secret, 'a'.repeat(32));
    assert.equal(load('[admin]\nlisten = "[::1]:9000"\n').admin.listen, '[::1]:9000');
  });

  it('refuses an admin secret equal to the notify secret, a short one, and a listen address without a port', () => {
    const same = issuesOf(() => load(`[auth]\njwt_secret = "${NOTIFY}"\nadmin_secret = "${NOTIFY}"\n`));
    assert.match(same.join('\n'), /auth\.admin_secret: must differ from auth\.jwt_secret/);
    assert.ok(!same.join('\n').includes(NOTIFY), 'the secret is never echoed');
    const fromEnv = issuesOf(() => load(`[auth]\njwt_secret = "${NOTIFY}"\n`, { SANDPIPER_ADMIN_SECRET: NOTIFY }));
    assert.match(fromEnv.join('\n'), /must differ from auth\.jwt_secret/);
    assert.match(
      issuesOf(() => load('[auth]\nadmin_secret = "short"\n')).join('\n'),
      /auth\.admin_secret: must be at least 32 characters/,
    );
    assert.match(
      issuesOf(() => load('[admin]\nlisten = "127.0.0.1"\n')).join('\n'),
      /admin\.listen: must be host:port/,
    );
    assert.match(
      issuesOf(() => load('[admin]\nlisten = "127.0.0.1:70000"\n')).join('\n'),
      /admin\.listen: port must be 0-65535/,
    );
  });
});

describe('slack installs in many workspaces (ADR 0042)', () => {
  const load = (text: string, env: Record<string, string> = {}) => loadConfig({ file: tempConfig(text).file, env });
  const KEY = 'k'.repeat(32);

  it('takes the client secret and token key from the environment and needs no bot token', () => {
    const text =
      '[gateway]\npublic_url = "https://sp.example.com"\n[slack]\nmode = "http"\nsigning_secret = "s"\nclient_id = "1.2"\n';
    const config = load(text, { SANDPIPER_SLACK_CLIENT_SECRET: 'cs', SANDPIPER_SLACK_TOKEN_KEY: KEY });
    assert.deepEqual(
      [config.slack.client_secret, config.slack.token_key, config.slack.bot_token],
      ['cs', KEY, undefined],
    );
  });

  it('names every missing piece: HTTP mode, the client secret, the token key and gateway.public_url', () => {
    const issues = issuesOf(() =>
      load('[slack]\nclient_id = "1.2"\nbot_token = "xoxb-1"\napp_token = "xapp-1"\n'),
    ).join('\n');
    for (const missing of [
      /slack\.mode: .*needs slack\.mode = "http"/,
      /slack\.client_secret/,
      /slack\.token_key/,
      /gateway\.public_url/,
    ])
      assert.match(issues, missing);
  });
});

describe('config.example.toml', () => {
  const exampleFile = path.join(root, 'config.example.toml');

  it('parses as a valid configuration', () => {
    const config = loadConfig({ file: exampleFile, env: {} });
    assert.equal(config.gateway.http_port, 8091);
  });
});
