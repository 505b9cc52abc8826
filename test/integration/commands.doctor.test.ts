/**
 * `sandpiper doctor` in-process (runCli, as the bin runs it) against the fakes: everything healthy, then each check
 * failing with its fix.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING, freePort } from '../fakes/mcp-servers.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { runCliInProcess } from '../helpers/run-cli-in-process.js';

interface Check {
  name: string;
  status: string;
  detail: string;
  fix?: string;
}

const toml = (value: string): string => JSON.stringify(value);

describe('sandpiper doctor', () => {
  let dir: string;
  /** One command as the bin in `dir` would run it (runCli in this process). */
  const run = (...argv: string[]): ReturnType<typeof runCliInProcess> => runCliInProcess(argv, { cwd: dir });
  let llm: FakeLlmServer;
  let discord: FakeDiscord;
  let slack: FakeSlack;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sp-doctor-'));
    [llm, discord, slack] = await Promise.all([
      startFakeLlmServer({ apiKey: 'sk-good' }),
      FakeDiscord.start(),
      FakeSlack.start(),
    ]);
  });
  after(async () => {
    await Promise.allSettled([llm.close(), discord.close(), slack.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  function writeConfig(
    name: string,
    options: { llmKey: string; discordToken: string; slackBot: string; mcpCommand: string; baseUrl?: string },
  ): string {
    const file = path.join(dir, `${name}.toml`);
    writeFileSync(
      file,
      [
        '[gateway]',
        `data_dir = ${toml(path.join(dir, `${name}-data`))}`,
        '[models.main]',
        'provider = "openai"',
        `base_url = ${toml(options.baseUrl ?? llm.url)}`,
        `api_key = ${toml(options.llmKey)}`,
        'model = "gpt-fake"',
        '[discord]',
        `token = ${toml(options.discordToken)}`,
        `api_url = ${toml(discord.apiUrl)}`,
        '[slack]',
        `bot_token = ${toml(options.slackBot)}`,
        `app_token = ${toml(slack.appToken)}`,
        `api_url = ${toml(slack.apiUrl)}`,
        '[mcp.servers.everything]',
        `command = ${toml(options.mcpCommand)}`,
        `args = [${toml(EVERYTHING)}, "stdio"]`,
        '',
      ].join('\n'),
    );
    return file;
  }

  it('passes every check against healthy fakes, one line each, and exits 0', async () => {
    const file = writeConfig('good', {
      llmKey: 'sk-good',
      discordToken: discord.token,
      slackBot: slack.botToken,
      mcpCommand: process.execPath,
    });
    assert.equal((await run('migrate', '--config', file, '--log-level', 'warn')).code, 0);
    const result = await run('doctor', '--config', file);
    assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
    const lines = result.stdout.trim().split('\n');
    for (const name of [
      'config',
      'database',
      'model main',
      'discord',
      'slack',
      'mcp everything',
      'sandbox',
      'images',
    ]) {
      assert.ok(
        lines.some((line) => new RegExp(`^(ok  |warn) ${name}\\s`).test(line)),
        `${name} in:\n${result.stdout}`,
      );
    }
    assert.match(result.stdout, /ok {3}discord\s+logged in as sandpiper/);
    assert.match(result.stdout, /ok {3}mcp everything\s+stdio, \d+ tools/);
    assert.match(result.stdout, /ok {3}images\s+sharp loaded/);
    // A server added at run time starts in the sandbox, as under start (ADR 0035); it may not see the database.
    const probe = path.join(dir, 'good-data', 'mcp', 'dbprobe');
    const script = `head -c 16 ${path.join(dir, 'good-data', 'sandpiper.db')} > ${probe}/seen 2>&1; exec ${process.execPath} ${EVERYTHING} stdio`;
    assert.equal((await run('mcp', 'add', 'dbprobe', '--config', file, '--command', 'sh', '--', '-c', script)).code, 0);
    const withRuntime = await run('doctor', '--config', file);
    const sandboxed = /ok {3}sandbox\s+bubblewrap/.test(withRuntime.stdout);
    assert.match(
      withRuntime.stdout,
      sandboxed ? /ok {3}mcp dbprobe\s+stdio, \d+ tools/ : /FAIL mcp dbprobe\s+did not start: .*added at run time/,
    );
    if (sandboxed) assert.doesNotMatch(readFileSync(path.join(probe, 'seen'), 'utf8'), /SQLite format/);
    assert.equal((await run('mcp', 'remove', 'dbprobe', '--config', file)).code, 0);
    const json = await run('doctor', '--config', file, '--json');
    const parsed = JSON.parse(json.stdout) as { ok: boolean; checks: Check[] };
    assert.equal(parsed.ok, true);
    assert.ok(parsed.checks.every((check) => check.status !== 'fail'));
  });

  it('reports each failure with what to do, never the secrets, and exits 1', async () => {
    const file = writeConfig('bad', {
      llmKey: 'sk-wrong-secret',
      discordToken: 'discord-wrong-secret',
      slackBot: 'xoxb-wrong-secret',
      mcpCommand: '/nonexistent/mcp-server',
    });
    const result = await run('doctor', '--config', file, '--json');
    assert.equal(result.code, 1, result.stderr);
    const { checks } = JSON.parse(result.stdout) as { ok: boolean; checks: Check[] };
    const byName = new Map(checks.map((check) => [check.name, check]));
    assert.equal(byName.get('database')?.status, 'fail');
    assert.match(byName.get('database')?.fix ?? '', /sandpiper migrate/);
    assert.match(byName.get('model main')?.detail ?? '', /401/);
    assert.match(byName.get('model main')?.fix ?? '', /models\.main\.api_key/);
    assert.match(byName.get('discord')?.fix ?? '', /discord\.token or SANDPIPER_DISCORD_TOKEN/);
    assert.match(byName.get('slack')?.detail ?? '', /bot token refused \(invalid_auth\)/);
    assert.equal(byName.get('mcp everything')?.status, 'fail');
    assert.match(byName.get('mcp everything')?.fix ?? '', /MCP server "everything"/);
    assert.ok(!`${result.stdout}${result.stderr}`.includes('wrong-secret'), 'no secret in the output');
    const text = await run('doctor', '--config', file);
    assert.equal(text.code, 1);
    for (const line of text.stdout.trim().split('\n')) assert.match(line, /^(ok  |FAIL|warn|skip) \S/);
    assert.match(text.stdout, /^FAIL database\s+no database at sqlite:.* → run: sandpiper migrate/m);
  });

  it('names an unreachable model endpoint and a configuration error', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/v1`;
    const file = writeConfig('down', {
      llmKey: 'sk-good',
      discordToken: discord.token,
      slackBot: slack.botToken,
      mcpCommand: process.execPath,
      baseUrl: closed,
    });
    const down = await run('doctor', '--config', file);
    assert.equal(down.code, 1);
    assert.match(
      down.stdout,
      /FAIL model main\s+http:\/\/127\.0\.0\.1:\d+\/v1\/models: ECONNREFUSED → check models\.main\.base_url/,
    );
    const broken = path.join(dir, 'broken.toml');
    writeFileSync(broken, '[gateway]\nhttp_prot = 1\n');
    const config = await run('doctor', '--config', broken);
    assert.equal(config.code, 1);
    assert.match(config.stdout, /^FAIL config\s+unknown key gateway\.http_prot in .*broken\.toml → fix the key/);
  });
});
