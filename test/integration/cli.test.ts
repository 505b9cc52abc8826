/** The real `sandpiper` bin: exit codes, admin commands, chat, start/stop, failures on one line, no secrets in logs. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKnex } from '../../src/storage/index.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import {
  BinProcess,
  binPath as bin,
  cleanEnv,
  repoRoot as root,
  runBin as run,
  runBinAsync,
  stateDirFor,
} from '../helpers/run-bin.js';

const tempDirs: string[] = [];
const processes: BinProcess[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
function startBin(args: string[], cwd: string, env: NodeJS.ProcessEnv): BinProcess {
  const child = new BinProcess(args, cwd, env);
  processes.push(child);
  return child;
}
after(() => {
  for (const child of processes) child.kill();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** One line on stderr, no stack frames. */
function assertOneLine(stderr: string): void {
  assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at /);
}

describe('sandpiper CLI', () => {
  let cwd: string;
  before(() => {
    cwd = tempDir('sp-cli-');
  });

  it('prints help and exits 0', () => {
    const result = run(['--help'], cwd);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /sandpiper start/);
    assert.match(result.stdout, /token create/);
  });

  it('runs as `npx sandpiper` in the checkout and `npx --prefix <checkout> sandpiper` from another directory', () => {
    const elsewhere = tempDir('sp-npx-');
    const env = {
      ...cleanEnv(),
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
      npm_config_cache: path.join(elsewhere, '.npm'),
    };
    const inCheckout = spawnSync('npx', ['sandpiper', '--help'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(inCheckout.status, 0, inCheckout.stderr);
    assert.match(inCheckout.stdout, /^usage: sandpiper <command>/);
    const fromElsewhere = spawnSync('npx', ['--prefix', root, 'sandpiper', 'user', 'add', '--help'], {
      cwd: elsewhere,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(fromElsewhere.status, 0, fromElsewhere.stderr);
    assert.match(fromElsewhere.stdout, /^usage: sandpiper user add USERNAME/);
  });

  it('exits 2 with the key named and no stack trace for an unknown config key', () => {
    const file = path.join(cwd, 'bad.toml');
    writeFileSync(file, '[gateway]\nhttp_prot = 1\n');
    const result = run(['start', '--config', file], cwd);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /gateway\.http_prot/);
    assertOneLine(result.stderr);
  });

  it('exits 2 for a wrong type, an unknown command, a missing argument and an unsupported database URL', () => {
    const file = path.join(cwd, 'type.toml');
    writeFileSync(file, '[gateway]\nhttp_port = "x"\n');
    const wrongType = run(['migrate', '--config', file], cwd);
    assert.equal(wrongType.code, 2);
    assert.match(wrongType.stderr, /gateway\.http_port: .*type\.toml/);
    assert.equal(run(['frobnicate'], cwd).code, 2);
    assert.equal(run(['user', 'add'], cwd).code, 2);
    const mysql = run(['migrate'], cwd, cleanEnv({ SANDPIPER_DATABASE_URL: 'mysql://root:hunter2@127.0.0.1/db' }));
    assert.equal(mysql.code, 2);
    assert.match(mysql.stderr, /database\.url: .*SANDPIPER_DATABASE_URL/);
    assert.ok(!mysql.stderr.includes('hunter2'));
  });

  it('exits 1 on one line, without the password, when PostgreSQL is unreachable', () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const env = cleanEnv({ SANDPIPER_DATABASE_URL: 'postgres://sandpiper:hunter2@127.0.0.1:1/sandpiper' });
    for (const args of [['migrate'], ['user', 'add', 'dora'], ['start']]) {
      const result = run(args, cwd, env);
      assert.equal(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /cannot connect to the database \(ECONNREFUSED\)/);
      assert.ok(!`${result.stdout}${result.stderr}`.includes('hunter2'));
      if (args[0] !== 'start') assertOneLine(result.stderr);
    }
    const debug = run(['migrate', '--log-level', 'debug'], cwd, env);
    assert.equal(debug.code, 1);
    assert.ok(!`${debug.stdout}${debug.stderr}`.includes('hunter2'));
  });

  it('runs `chat` against an OpenAI-compatible server and exits 0 on /quit', async () => {
    const fake = await startFakeLlmServer();
    try {
      fake.enqueue({ text: ['Hello ', 'from the model'] });
      const dir = tempDir('sp-chat-');
      writeFileSync(
        path.join(dir, 'config.toml'),
        `[models.main]\nprovider = "openai"\nbase_url = "${fake.url}"\napi_key = "sk-test"\nmodel = "gpt-fake"\n`,
      );
      const child = spawn(process.execPath, [bin, 'chat'], {
        cwd: dir,
        env: cleanEnv(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      let errors = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('from the model')) child.stdin.end('/quit\n');
      });
      child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // A chat that does not leave fails here with what it printed, not at the file's time limit (CI once hung here).
      const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.stdin.write('hello?\n');
      const code = await exited;
      clearTimeout(limit);
      assert.equal(code, 0, `chat did not exit by itself within 60 s\nstdout: ${output}\nstderr: ${errors}`);
      assert.match(output, /Hello from the model/);
      assert.equal((fake.requests[0]?.body as { model?: string }).model, 'gpt-fake');
    } finally {
      await fake.close();
    }
  });

  it('refuses to create a new database from an admin command, and says which database it opened with --verbose', () => {
    const refused = run(['user', 'add', 'bob'], cwd);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /no database at .*\.state\/sandpiper\/sandpiper\.db .*sandpiper migrate.*--create-db/);
    assertOneLine(refused.stderr);
    assert.ok(!existsSync(path.join(stateDirFor(cwd), 'sandpiper.db')), 'nothing was created');
    const migrate = run(['migrate', '--verbose'], cwd);
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.equal(
      migrate.stderr.split('\n')[0],
      `database: SQLite ${path.join(stateDirFor(cwd), 'sandpiper.db')} (no config file)`,
    );
    const created = run(
      ['user', 'add', 'erin', '--create-db', '--verbose', '--config', path.join(cwd, 'own.toml')],
      cwd,
    );
    assert.equal(created.code, 2, 'a missing --config file is a configuration error');
    writeFileSync(path.join(cwd, 'own.toml'), '');
    const own = run(['user', 'add', 'erin', '--create-db', '--verbose', '--config', path.join(cwd, 'own.toml')], cwd);
    assert.equal(own.code, 0, own.stderr);
    assert.match(
      own.stderr,
      new RegExp(
        `^database: SQLite ${path.join(cwd, 'data', 'sandpiper.db')} \\(config ${path.join(cwd, 'own.toml')}\\)`,
      ),
    );
  });

  it('creates a user and prints the token alone on the last line of stdout', () => {
    assert.equal(run(['user', 'add', 'bob'], cwd).code, 0);
    const token = run(['token', 'create', 'bob', '--scopes', 'read,write', '--expires', '30'], cwd);
    assert.equal(token.code, 0, token.stderr);
    const lines = token.stdout.trim().split('\n');
    assert.match(lines[lines.length - 1] as string, /^sp_[A-Za-z0-9_-]{40,}$/);
    assert.ok(!token.stderr.includes(lines[lines.length - 1] as string), 'the token is printed once');
  });

  it('exits 2 from `chat` when no model is configured', () => {
    const result = run(['chat'], cwd);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no model configured/);
  });

  describe('start', () => {
    let child: BinProcess;
    let url: string;
    const dataDir = (): string => stateDirFor(cwd);

    it('starts with no config, says no adapter is configured, and answers /health', async () => {
      child = startBin(['start'], cwd, cleanEnv({ SANDPIPER_HTTP_PORT: '0' }));
      await child.waitFor(/no channel adapter is configured/);
      const match = await child.waitFor(/http listening on (http:\/\/[0-9.:]+)/);
      url = match[1] as string;
      const response = await fetch(`${url}/health`);
      assert.equal(response.status, 200);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body['status'], 'ok');
      assert.equal(body['service'], 'channel');
      const mcp = body['mcp'] as Record<string, unknown>;
      assert.deepEqual([mcp['servers'], mcp['tools'], mcp['resources'], mcp['prompts']], [0, 0, 0, 0]);
      const metrics = await fetch(`${url}/metrics`);
      assert.match(await metrics.text(), /sandpiper_http_request_duration_seconds/);
      const missing = await fetch(`${url}/nope`);
      assert.equal(missing.status, 404);
    });

    it('lets admin commands write the same SQLite file while start runs', () => {
      assert.equal(run(['user', 'add', 'carol'], cwd).code, 0);
      const token = run(['token', 'create', 'carol'], cwd);
      assert.equal(token.code, 0, token.stderr);
      assert.match(token.stdout.trimEnd().split('\n').at(-1) ?? '', /^sp_/);
    });

    it('refuses a second start on the same port with one line and exit 1', () => {
      const port = new URL(url).port;
      const second = run(['start'], tempDir('sp-cli-port-'), cleanEnv({ SANDPIPER_HTTP_PORT: port }));
      assert.equal(second.code, 1, second.stderr);
      const errors = second.stderr.split('\n').filter((line) => line.startsWith('sandpiper:'));
      assert.deepEqual(errors, [
        `sandpiper: cannot listen on 127.0.0.1:${port}: address already in use (set gateway.http_port / SANDPIPER_HTTP_PORT or gateway.http_host)`,
      ]);
      assert.doesNotMatch(second.stderr, /\n\s+at /);
    });

    it('registers in services while running and removes the row on SIGTERM, exiting 0', async () => {
      const knex = createKnex(`sqlite:${path.join(dataDir(), 'sandpiper.db')}`);
      try {
        const rows = await knex('services').select('service_id', 'url');
        assert.equal(rows.length, 1);
        assert.match(String(rows[0].service_id), /^channel-.+-[0-9a-f]{8}$/);
        assert.equal(await child.stop('SIGTERM'), 0);
        assert.equal((await knex('services').select()).length, 0);
      } finally {
        await knex.destroy();
      }
    });
  });

  it('exits 1 on one line naming the directory when data_dir cannot be created', () => {
    const dir = tempDir('sp-cli-datadir-');
    writeFileSync(path.join(dir, 'a-file'), '');
    const result = run(
      ['start'],
      dir,
      cleanEnv({ SANDPIPER_HTTP_PORT: '0', SANDPIPER_DATA_DIR: path.join(dir, 'a-file', 'data') }),
    );
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /cannot create the database directory .*a-file.*ENOTDIR/);
    assertOneLine(result.stderr);
  });
});

describe('sandpiper start with platform tokens and secrets', () => {
  const secrets = {
    discord: 'MTk4NjIyNDgzNDcxOTI1MjQ4.discord-secret-4d1c',
    jwt: 'jwt-secret-9b2e-jwt-secret-9b2e-jwt-secret',
    openai: 'sk-openai-secret-77aa',
    tavily: 'tvly-secret-5f0d',
  };
  let discord: FakeDiscord;
  let slack: FakeSlack;
  let dir: string;

  before(async () => {
    [discord, slack] = await Promise.all([FakeDiscord.start({ token: secrets.discord }), FakeSlack.start()]);
    dir = tempDir('sp-cli-secrets-');
    const config = [
      '[models.main]\nprovider = "openai"\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "m"',
      `[discord]\napi_url = "${discord.apiUrl}"`,
      `[slack]\napi_url = "${slack.apiUrl}"`,
    ].join('\n');
    writeFileSync(path.join(dir, 'config.toml'), config);
  });
  after(async () => {
    await Promise.allSettled([discord?.close(), slack?.close()]);
  });

  it('never logs a token or secret at debug level, and exits 0 on SIGINT with both adapters connected', async () => {
    const env = cleanEnv({
      SANDPIPER_HTTP_PORT: '0',
      SANDPIPER_DISCORD_TOKEN: secrets.discord,
      SANDPIPER_SLACK_BOT_TOKEN: slack.botToken,
      SANDPIPER_SLACK_APP_TOKEN: slack.appToken,
      SANDPIPER_JWT_SECRET: secrets.jwt,
      OPENAI_API_KEY: secrets.openai,
      TAVILY_API_KEY: secrets.tavily,
    });
    const child = startBin(['start', '--log-level', 'debug'], dir, env);
    const url = (await child.waitFor(/http listening on (http:\/\/[0-9.:]+)/))[1] as string;
    const deadline = Date.now() + 30_000;
    let adapters: Record<string, string> = {};
    while (!(adapters['discord'] === 'connected' && adapters['slack'] === 'connected')) {
      assert.ok(Date.now() < deadline, `adapters did not connect: ${JSON.stringify(adapters)}`);
      adapters = (
        (await (await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) })).json()) as {
          adapters: Record<string, string>;
        }
      ).adapters;
      if (!(adapters['discord'] === 'connected' && adapters['slack'] === 'connected'))
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A notify through the CLI: the JWT is minted from the secret and sent on the wire.
    const notifyEnv = { ...env, SANDPIPER_HTTP_PORT: new URL(url).port };
    const notify = await runBinAsync(
      ['notify', '--channel-type', 'discord', '--channel-id', '300000000000000001', 'hello'],
      dir,
      notifyEnv,
    );
    assert.equal(notify.code, 0, notify.stderr);
    assert.match(notify.stdout, /^discord:300000000000000001 sent \d+$/m);
    // With --idempotency-key, running it again answers the first result (same message id) without a second post.
    const keyed = [
      'notify',
      '--channel-type',
      'discord',
      '--channel-id',
      '300000000000000001',
      '--idempotency-key',
      'cli-once',
      'only once',
    ];
    const once = await runBinAsync(keyed, dir, notifyEnv);
    const again = await runBinAsync(keyed, dir, notifyEnv);
    assert.equal(again.code, 0, again.stderr);
    assert.match(once.stdout, /^discord:300000000000000001 sent \d+$/m);
    assert.equal(again.stdout, once.stdout);
    assert.equal([...discord.state.messages.values()].filter((m) => m.content === 'only once').length, 1);
    assert.equal(await child.stop('SIGINT'), 0, child.output.slice(-4000));
    assert.match(child.output, /"msg":"stopped"/);
    const everything = `${child.output}${notify.stdout}${notify.stderr}`;
    for (const secret of [...Object.values(secrets), slack.botToken, slack.appToken]) {
      assert.ok(!everything.includes(secret), `a secret (${secret.slice(0, 6)}…) appears in the output`);
    }
  });

  it('exits 0 on SIGINT after the Discord login failed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    writeFileSync(path.join(dir, 'missing-discord.toml'), `[discord]\napi_url = "http://127.0.0.1:${port}/api"\n`);
    const child = startBin(
      ['start', '--config', path.join(dir, 'missing-discord.toml')],
      dir,
      cleanEnv({ SANDPIPER_HTTP_PORT: '0', SANDPIPER_DISCORD_TOKEN: secrets.discord }),
    );
    await child.waitFor(/start discord failed/);
    assert.equal(await child.stop('SIGINT'), 0, child.output.slice(-1500));
  });
});
