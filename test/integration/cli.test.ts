/**
 * The real `sandpiper` bin: npx, exit codes, one admin command, chat, start/stop, failures on one line, no secrets in
 * logs (with platform tokens: cli.secrets.test.ts). A command's own behaviour runs in-process (commands.*.test.ts,
 * src/cli/run-cli.test.ts).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKnex } from '../../src/storage/index.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import type { BinProcess } from '../helpers/run-bin.js';
import {
  StartedBins,
  binPath as bin,
  cleanEnv,
  repoRoot as root,
  runBin as run,
  stateDirFor,
} from '../helpers/run-bin.js';
import { runCliInProcess } from '../helpers/run-cli-in-process.js';

const tempDirs: string[] = [];
const bins = new StartedBins();
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
after(() => {
  bins.killAll();
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

  it('exits 1 on one line, without the password in its output or logs, when PostgreSQL is unreachable', () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once. The process's stderr holds its log
    // lines too: `migrate` still prints one line (an admin command's: commands.config-and-database).
    const env = cleanEnv({ SANDPIPER_DATABASE_URL: 'postgres://sandpiper:hunter2@127.0.0.1:1/sandpiper' });
    for (const args of [['migrate'], ['start']]) {
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

  it('creates a user and prints the token alone on the last line of stdout', () => {
    // The one admin command end to end through the bin: argv, stdout and the exit code of the process.
    assert.equal(run(['user', 'add', 'bob', '--create-db'], cwd).code, 0);
    const token = run(['token', 'create', 'bob', '--scopes', 'read,write', '--expires', '30'], cwd);
    assert.equal(token.code, 0, token.stderr);
    const lines = token.stdout.trim().split('\n');
    assert.match(lines[lines.length - 1] as string, /^sp_[A-Za-z0-9_-]{40,}$/);
    assert.ok(!token.stderr.includes(lines[lines.length - 1] as string), 'the token is printed once');
  });

  describe('start', () => {
    let child: BinProcess;
    let url: string;
    const dataDir = (): string => stateDirFor(cwd);

    it('starts with no config, says no adapter is configured, and answers /health', async () => {
      child = bins.start(['start'], cwd, cleanEnv({ SANDPIPER_HTTP_PORT: '0' }));
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

    it('lets admin commands write the same SQLite file while start runs', async () => {
      // In this process (runCli, as the bin runs it): the gateway is the other process on the file.
      assert.equal((await runCliInProcess(['user', 'add', 'carol'], { cwd })).code, 0);
      const token = await runCliInProcess(['token', 'create', 'carol'], { cwd });
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
