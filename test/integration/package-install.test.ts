/**
 * The installable package: `npm pack`, then `npm install -g --prefix <tmp>`, then `sandpiper` from another folder —
 * help, the platform state folder as data_dir, admin commands refusing to create a database, and SIGTERM to the
 * installed bin stopping the gateway with no process left. It runs when SANDPIPER_TEST_PACKAGE=1 (CI sets it, see
 * .ci/run); otherwise one line says it was skipped. The install unpacks the SQLite driver this checkout compiled
 * (scripts/sqlite-prebuild.mjs) instead of compiling its C sources again, a minute of one core that tests sqlite3's
 * build, not our package; SANDPIPER_TEST_LONG=1 compiles it as a user without network to GitHub would.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { assertStopsGracefully, launch, writeGatewayConfig } from '../helpers/launchers.js';
import { cleanEnv, repoRoot } from '../helpers/run-bin.js';

const run = promisify(execFile);
const enabled = process.env['SANDPIPER_TEST_PACKAGE'] === '1';

describe(
  'npm pack + npm install -g',
  { skip: enabled ? false : 'set SANDPIPER_TEST_PACKAGE=1 to pack and install the package (CI does)' },
  () => {
    let dir: string;
    let bin: string;
    let elsewhere: string;
    let env: NodeJS.ProcessEnv;

    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'sp-package-'));
      const npmEnv: NodeJS.ProcessEnv = {
        ...process.env,
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      };
      if (process.env['SANDPIPER_TEST_LONG'] !== '1') {
        const prebuilds = path.join(dir, 'prebuilds');
        await run(process.execPath, [path.join(repoRoot, 'scripts', 'sqlite-prebuild.mjs'), prebuilds], {
          cwd: repoRoot,
        });
        npmEnv['npm_config_sqlite3_local_prebuilds'] = prebuilds;
      } else {
        delete npmEnv['npm_config_sqlite3_local_prebuilds'];
      }
      await run('npm', ['pack', '--pack-destination', dir], { cwd: repoRoot, env: npmEnv, timeout: 600_000 });
      const tarball = readdirSync(dir).find((file) => file.endsWith('.tgz'));
      assert.ok(tarball, 'npm pack wrote a tarball');
      const prefix = path.join(dir, 'prefix');
      await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', path.join(dir, tarball)], {
        cwd: dir,
        env: npmEnv,
        timeout: 1_200_000,
      });
      bin = path.join(prefix, 'bin', 'sandpiper');
      elsewhere = path.join(dir, 'elsewhere');
      mkdirSync(elsewhere);
      env = cleanEnv({ XDG_STATE_HOME: path.join(dir, 'state') });
    });
    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('ships the compiled build without the TypeScript sources, and answers --help from any folder', async () => {
      const installed = path.join(path.dirname(path.dirname(bin)), 'lib', 'node_modules', 'sandpiper');
      assert.ok(existsSync(path.join(installed, 'dist', 'src', 'cli.js')));
      assert.ok(existsSync(path.join(installed, 'tools')));
      assert.ok(!existsSync(path.join(installed, 'src')), 'no sources: the bin runs dist/');
      const { stdout } = await run(bin, ['--help'], { cwd: elsewhere, env });
      assert.match(stdout, /^usage: sandpiper <command>/);
    });

    it('keeps the data in the platform state folder and refuses to create a database from an admin command', async () => {
      const refused = await run(bin, ['user', 'add', 'alice'], { cwd: elsewhere, env }).then(
        () => assert.fail('user add without a database succeeded'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /no database at .*state\/sandpiper\/sandpiper\.db/);
      const migrate = await run(bin, ['migrate', '--verbose'], { cwd: elsewhere, env });
      assert.match(
        migrate.stderr,
        new RegExp(`^database: SQLite ${path.join(dir, 'state', 'sandpiper', 'sandpiper.db')} \\(no config file\\)`),
      );
      const added = await run(bin, ['user', 'add', 'alice'], { cwd: dir, env });
      assert.match(added.stdout, /created user alice/);
      assert.ok(
        !existsSync(path.join(elsewhere, 'data')) && !existsSync(path.join(dir, 'data')),
        'nothing under the current folder',
      );
    });

    it('stops gracefully on SIGTERM to the installed bin, leaving no process behind', async () => {
      const configDir = path.join(dir, 'gateway');
      mkdirSync(configDir);
      const config = writeGatewayConfig(configDir);
      const launched = launch(bin, ['start', '--config', config], elsewhere, env);
      try {
        const { code } = await assertStopsGracefully(launched, 'SIGTERM', path.join(configDir, 'data', 'sandpiper.db'));
        assert.equal(code, 0);
      } finally {
        if (launched.child.exitCode === null) launched.child.kill('SIGKILL');
      }
    });
  },
);
