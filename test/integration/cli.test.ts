import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKnex } from '../../src/storage/index.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin', 'sandpiper.js');

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'], SANDPIPER_LOG_FORMAT: 'json', ...extra };
  return env;
}

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()) {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
  let buffer = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; got: ${buffer}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString();
      const match = buffer.match(pattern);
      if (match) {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        resolve(match);
      }
    };
    child.stderr?.on('data', onData);
  });
}

describe('sandpiper CLI', () => {
  let cwd: string;
  before(() => {
    cwd = mkdtempSync(path.join(tmpdir(), 'sp-cli-'));
  });

  it('prints help and exits 0', () => {
    const result = run(['--help'], cwd);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /sandpiper start/);
    assert.match(result.stdout, /token create/);
  });

  it('exits 2 with the key named and no stack trace for an unknown config key', () => {
    const file = path.join(cwd, 'bad.toml');
    writeFileSync(file, '[gateway]\nhttp_prot = 1\n');
    const result = run(['start', '--config', file], cwd);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /gateway\.http_prot/);
    assert.ok(result.stderr.trim().split('\n').length <= 3, result.stderr);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });

  it('exits 2 for a wrong type and for an unknown command', () => {
    const file = path.join(cwd, 'type.toml');
    writeFileSync(file, '[gateway]\nhttp_port = "x"\n');
    assert.equal(run(['migrate', '--config', file], cwd).code, 2);
    assert.equal(run(['frobnicate'], cwd).code, 2);
    assert.equal(run(['user', 'add'], cwd).code, 2);
  });

  it('manages users, tokens and links with the documented exit codes', () => {
    assert.equal(run(['user', 'add', 'bob'], cwd).code, 0);
    const duplicate = run(['user', 'add', 'bob'], cwd);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /exists/);
    const token = run(['token', 'create', 'bob', '--scopes', 'read,write', '--expires', '30'], cwd);
    assert.equal(token.code, 0, token.stderr);
    const lines = token.stdout.trim().split('\n');
    assert.match(lines[lines.length - 1] as string, /^sp_[A-Za-z0-9_-]{40,}$/);
    const unknown = run(['token', 'create', 'nobody'], cwd);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user named "nobody"/);
    assert.equal(run(['token', 'create', 'bob', '--scopes', 'root'], cwd).code, 2);
    assert.equal(run(['token', 'create', 'bob', '--expires', '-3'], cwd).code, 2);
    assert.equal(run(['link', 'discord', '123456789012345678', 'bob'], cwd).code, 0);
    assert.equal(run(['link', 'matrix', '1', 'bob'], cwd).code, 2);
    assert.equal(run(['unlink', 'discord', '123456789012345678'], cwd).code, 0);
    assert.equal(run(['unlink', 'discord', '123456789012345678'], cwd).code, 1);
  });

  it('runs `chat` against an OpenAI-compatible server and exits 0 on /quit', async () => {
    const fake = await startFakeLlmServer();
    try {
      fake.enqueue({ text: ['Hello ', 'from the model'] });
      const dir = mkdtempSync(path.join(tmpdir(), 'sp-chat-'));
      writeFileSync(
        path.join(dir, 'config.toml'),
        `[models.main]\nprovider = "openai"\nbase_url = "${fake.url}"\napi_key = "sk-test"\nmodel = "gpt-fake"\n`,
      );
      const child = spawn(process.execPath, [bin, 'chat'], { cwd: dir, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('from the model')) child.stdin.end('/quit\n');
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin.write('hello?\n');
      assert.equal(await exited, 0);
      assert.match(output, /Hello from the model/);
      assert.equal((fake.requests[0]?.body as { model?: string }).model, 'gpt-fake');
    } finally {
      await fake.close();
    }
  });

  it('exits 2 from `chat` when no model is configured', () => {
    const result = run(['chat'], cwd);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no model configured/);
  });

  describe('start', () => {
    let child: ChildProcess;
    let url: string;
    const dataDir = (): string => path.join(cwd, 'data');
    after(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });

    it('starts with no config, says no adapter is configured, and answers /health', async () => {
      child = spawn(process.execPath, [bin, 'start'], { cwd, env: cleanEnv({ SANDPIPER_HTTP_PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
      const logs = waitForLine(child, /no channel adapter is configured/);
      const match = await waitForLine(child, /http listening on (http:\/\/[0-9.:]+)/);
      url = match[1] as string;
      await logs;
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
      assert.equal(run(['token', 'create', 'carol'], cwd).code, 0);
    });

    it('registers in services while running and removes the row on SIGTERM, exiting 0', async () => {
      const knex = createKnex(`sqlite:${path.join(dataDir(), 'sandpiper.db')}`);
      try {
        const rows = await knex('services').select('service_id', 'url');
        assert.equal(rows.length, 1);
        assert.match(String(rows[0].service_id), /^channel-.+-[0-9a-f]{8}$/);
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill('SIGTERM');
        assert.equal(await exited, 0);
        assert.equal((await knex('services').select()).length, 0);
      } finally {
        await knex.destroy();
      }
    });
  });
});
