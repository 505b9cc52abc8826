/**
 * Which configuration and database a command uses, and the failures when they are wrong, in-process (runCli, as the
 * bin runs it, given the working folder and variables the bin would get): exit 2 for configuration and usage
 * mistakes, exit 1 on one line without the password for an unreachable database, no new SQLite file by accident,
 * `--verbose` naming the database. What the real process prints around them (logs, `start`) is in cli.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanEnv, stateDirFor } from '../helpers/run-bin.js';
import { runCliInProcess, type InProcessInputs } from '../helpers/run-cli-in-process.js';

let cwd: string;
before(() => {
  cwd = mkdtempSync(path.join(tmpdir(), 'sp-cli-config-'));
});
after(() => rmSync(cwd, { recursive: true, force: true }));

const run = (args: string[], env?: NodeJS.ProcessEnv): ReturnType<typeof runCliInProcess> => {
  const inputs: InProcessInputs = env === undefined ? { cwd } : { cwd, env };
  return runCliInProcess(args, inputs);
};

/** One line on stderr, no stack frames. */
function assertOneLine(stderr: string): void {
  assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
  assert.doesNotMatch(stderr, /\n\s+at /);
}

describe('configuration and database of a command', () => {
  it('exits 2 for a wrong type, an unknown command, a missing argument and an unsupported database URL', async () => {
    const file = path.join(cwd, 'type.toml');
    writeFileSync(file, '[gateway]\nhttp_port = "x"\n');
    const wrongType = await run(['migrate', '--config', file]);
    assert.equal(wrongType.code, 2);
    assert.match(wrongType.stderr, /gateway\.http_port: .*type\.toml/);
    assert.equal((await run(['frobnicate'])).code, 2);
    assert.equal((await run(['user', 'add'])).code, 2);
    const mysql = await run(['migrate'], cleanEnv({ SANDPIPER_DATABASE_URL: 'mysql://root:hunter2@127.0.0.1/db' }));
    assert.equal(mysql.code, 2);
    assert.match(mysql.stderr, /database\.url: .*SANDPIPER_DATABASE_URL/);
    assert.ok(!mysql.stderr.includes('hunter2'));
  });

  it('exits 1 on one line, without the password, when an admin command cannot reach PostgreSQL', async () => {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    const env = cleanEnv({ SANDPIPER_DATABASE_URL: 'postgres://sandpiper:hunter2@127.0.0.1:1/sandpiper' });
    const result = await run(['user', 'add', 'dora'], env);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /cannot connect to the database \(ECONNREFUSED\)/);
    assert.ok(!`${result.stdout}${result.stderr}`.includes('hunter2'));
    assertOneLine(result.stderr);
  });

  it('refuses to create a new database from an admin command, and says which database it opened with --verbose', async () => {
    const refused = await run(['user', 'add', 'bob']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /no database at .*\.state\/sandpiper\/sandpiper\.db .*sandpiper migrate.*--create-db/);
    assertOneLine(refused.stderr);
    assert.ok(!existsSync(path.join(stateDirFor(cwd), 'sandpiper.db')), 'nothing was created');
    const migrate = await run(['migrate', '--verbose']);
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.equal(
      migrate.stderr.split('\n')[0],
      `database: SQLite ${path.join(stateDirFor(cwd), 'sandpiper.db')} (no config file)`,
    );
    const own = ['user', 'add', 'erin', '--create-db', '--verbose', '--config', path.join(cwd, 'own.toml')];
    assert.equal((await run(own)).code, 2, 'a missing --config file is a configuration error');
    writeFileSync(path.join(cwd, 'own.toml'), '');
    const created = await run(own);
    assert.equal(created.code, 0, created.stderr);
    assert.match(
      created.stderr,
      new RegExp(
        `^database: SQLite ${path.join(cwd, 'data', 'sandpiper.db')} \\(config ${path.join(cwd, 'own.toml')}\\)`,
      ),
    );
  });

  it('exits 2 from `chat` when no model is configured', async () => {
    const result = await run(['chat']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /no model configured/);
  });
});
