/** runCli in-process: help on every command, exit code 2 and a one-line error for usage and configuration mistakes. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { commands } from './commands.js';
import { runCli } from './run-cli.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(argv, { stdout, stderr, stdin: new PassThrough() }, new AbortController().signal);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

function assertOneLineError(result: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
}

describe('runCli help', () => {
  for (const command of commands) {
    it(`prints the usage of "${command.name}" for --help and exits 0`, async () => {
      const result = await cli([...command.name.split(' '), '--help']);
      assert.equal(result.code, 0);
      assert.equal(result.stderr, '');
      assert.ok(result.stdout.startsWith(`usage: ${command.usage}\n`), result.stdout);
      assert.match(result.stdout, /--config FILE/);
    });
  }

  it('prints the subcommands of a command group for `user --help` and `token --help`', async () => {
    for (const group of ['user', 'token']) {
      const result = await cli([group, '--help']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`sandpiper ${group} \\w+ USERNAME`));
    }
  });

  it('prints the command list for --help, -h, help and no arguments', async () => {
    for (const argv of [['--help'], ['-h'], ['help'], []]) {
      const result = await cli(argv);
      assert.equal(result.code, 0);
      for (const command of commands)
        assert.ok(result.stdout.includes(command.usage), `${command.name} missing from help`);
    }
  });
});

describe('runCli usage errors', () => {
  it('names an unknown command on one line', async () => {
    assertOneLineError(await cli(['frobnicate']), /unknown command "frobnicate"/);
  });

  it('names a missing or unknown subcommand', async () => {
    assertOneLineError(await cli(['user']), /missing subcommand of "user".*user add USERNAME/);
    assertOneLineError(await cli(['token', 'mint']), /unknown subcommand of "token"/);
  });

  it('rejects an unknown flag on every command', async () => {
    for (const command of commands) {
      assertOneLineError(await cli([...command.name.split(' '), '--bogus']), /Unknown option '--bogus'/);
    }
  });

  it('rejects a flag that lacks its value', async () => {
    assertOneLineError(await cli(['start', '--config']), /--config/);
  });

  it('rejects missing and surplus arguments', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['user', 'add'], /usage: sandpiper user add/],
      [['user', 'add', 'a', 'b'], /unexpected argument "b"/],
      [['token', 'create'], /usage: sandpiper token create/],
      [['link', 'discord', '1'], /usage: sandpiper link/],
      [['unlink', 'discord'], /usage: sandpiper unlink/],
      [['notify'], /usage: sandpiper notify/],
      [['notify', '--channel-type', 'discord', 'hello'], /--channel-id/],
      [['mcp'], /usage: sandpiper mcp/],
      [['mcp', 'reconnect'], /usage: sandpiper mcp/],
    ];
    for (const [argv, pattern] of cases) assertOneLineError(await cli(argv), pattern);
  });
});

describe('runCli configuration errors', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sp-run-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const configWith = (name: string, text: string): string => {
    const file = path.join(dir, `${name}.toml`);
    writeFileSync(file, text);
    return file;
  };

  // One wrong value per section: the key is named as section.key, the file is the source.
  const cases: Array<[string, string, string]> = [
    ['gateway', '[gateway]\nhttp_port = 70000\n', 'gateway.http_port'],
    ['database', '[database]\nurl = "mysql://root:hunter2@db/x"\n', 'database.url'],
    ['database-empty-sqlite', '[database]\nurl = "sqlite:"\n', 'database.url'],
    ['auth', '[auth]\njwt_audience = ""\n', 'auth.jwt_audience'],
    ['models', '[models.main]\nprovider = "cohere"\nmodel = "m"\n', 'models.main.provider'],
    ['agent', '[agent]\nauto_approve = "yes"\n', 'agent.auto_approve'],
    ['tools', '[tools]\nsearch = "sometimes"\n', 'tools.search'],
    ['discord', '[discord]\nguild_id = "my-guild"\n', 'discord.guild_id'],
    ['slack', '[slack]\nslash_command = "sandpiper"\n', 'slack.slash_command'],
    ['mcp', '[mcp.servers.files]\ntype = "http"\n', 'mcp.servers.files.url'],
    ['log', '[log]\nformat = "xml"\n', 'log.format'],
    ['unknown-key', '[gateway]\nhttp_prot = 1\n', 'gateway.http_prot'],
    ['unknown-table', '[gatway]\nhttp_port = 1\n', 'gatway'],
  ];
  for (const [name, text, key] of cases) {
    it(`exits 2 naming ${key} for a bad ${name} value`, async () => {
      const file = configWith(name, text);
      const result = await cli(['migrate', '--config', file]);
      assertOneLineError(result, new RegExp(`configuration error: .*${key.replace(/\./g, '\\.')}`));
      assert.ok(result.stderr.includes(file), 'the file is named as the source');
      assert.ok(!result.stderr.includes('hunter2'));
    });
  }

  it('keeps several problems to at most three lines', async () => {
    const file = configWith('many', '[gateway]\nhttp_port = "x"\nhttp_host = 1\n[log]\nlevel = 3\nformat = 4\n');
    const result = await cli(['start', '--config', file]);
    assert.equal(result.code, 2);
    const lines = result.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 3, result.stderr);
    assert.match(result.stderr, /\(\+1 more\)/);
  });

  it('exits 2 for a missing file, a directory and invalid TOML given as --config', async () => {
    assertOneLineError(
      await cli(['user', 'add', 'x', '--config', path.join(dir, 'absent.toml')]),
      /config file not found/,
    );
    assertOneLineError(await cli(['user', 'add', 'x', '--config', dir]), /cannot read config file .*EISDIR/);
    assertOneLineError(await cli(['user', 'add', 'x', '--config', configWith('toml', '[gateway\n')]), /invalid TOML/);
  });

  it('exits 2 for a bad --log-level flag and names the flag as the source', async () => {
    assertOneLineError(
      await cli(['migrate', '--config', configWith('empty', ''), '--log-level', 'loud']),
      /log\.level: .*flag/,
    );
  });
});

describe('runCli admin commands', () => {
  let dir: string;
  let config: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sp-run-cli-admin-'));
    config = path.join(dir, 'config.toml');
    writeFileSync(config, `[gateway]\ndata_dir = ${JSON.stringify(path.join(dir, 'data'))}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const admin = (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    cli([...argv, '--config', config]);

  it('manages users, tokens and links with the documented exit codes', async () => {
    const noDatabase = await admin(['user', 'add', 'bob']);
    assert.equal(noDatabase.code, 1);
    assert.match(noDatabase.stderr, /^sandpiper: no database at .*sandpiper\.db .*--create-db/);
    assert.equal((await admin(['user', 'add', 'bob', '--create-db'])).code, 0);
    const duplicate = await admin(['user', 'add', 'bob']);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /exists/);
    const token = await admin(['token', 'create', 'bob', '--scopes', 'read,write', '--expires', '30']);
    assert.equal(token.code, 0, token.stderr);
    assert.match(token.stdout, /^sp_[A-Za-z0-9_-]{40,}\n$/);
    const unknown = await admin(['token', 'create', 'nobody']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user named "nobody"/);
    assert.equal((await admin(['token', 'create', 'bob', '--scopes', 'root'])).code, 2);
    assert.equal((await admin(['token', 'create', 'bob', '--expires', '-3'])).code, 2);
    assert.equal((await admin(['link', 'discord', '123456789012345678', 'bob'])).code, 0);
    assert.equal((await admin(['link', 'matrix', '1', 'bob'])).code, 2);
    assert.equal((await admin(['unlink', 'discord', '123456789012345678'])).code, 0);
    assert.equal((await admin(['unlink', 'discord', '123456789012345678'])).code, 1);
  });
});
