/**
 * The installable package: `npm pack`, then `npm install -g --prefix <tmp>`, then `sandpiper` from another folder —
 * help, the platform state folder as data_dir, admin commands refusing to create a database, a Discord mention answered
 * through the model by the installed bin (discord.js and the model SDKs come from dist/, not node_modules: ADR 0055),
 * and SIGTERM to the installed bin stopping the gateway with no process left. It runs when SANDPIPER_TEST_PACKAGE=1 (CI sets it, see
 * .ci/run); otherwise one line says it was skipped. The install unpacks the SQLite driver this checkout compiled
 * (scripts/sqlite-prebuild.mjs) instead of compiling its C sources again, a minute of one core that tests sqlite3's
 * build, not our package; SANDPIPER_TEST_LONG=1 compiles it as a user without network to GitHub would.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { assertStopsGracefully, launch, writeGatewayConfig } from '../helpers/launchers.js';
import { cleanEnv, repoRoot } from '../helpers/run-bin.js';
import { waitFor } from '../helpers/wait-for.js';

const run = promisify(execFile);
const CHANNEL_ID = '300000000000000001';
const USER_ID = '400000000000000042';
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

    it('answers a Discord mention through the model (both bundled, not installed), then stops gracefully on SIGTERM, leaving no process behind', async () => {
      const installed = path.join(path.dirname(path.dirname(bin)), 'lib', 'node_modules', 'sandpiper');
      for (const bundled of ['discord.js', 'openai', '@anthropic-ai/sdk'])
        assert.ok(!existsSync(path.join(installed, 'node_modules', bundled)), `${bundled} is in dist/, not installed`);
      assert.match(
        readFileSync(path.join(installed, 'dist', 'THIRD-PARTY-NOTICES.txt'), 'utf8'),
        /^discord\.js@.*Apache/m,
      );
      const [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
      const configDir = path.join(dir, 'gateway');
      mkdirSync(configDir);
      const config = writeGatewayConfig(
        configDir,
        `\n[models.main]\nprovider = "openai"\nbase_url = "${llm.url}"\napi_key = "sk-test"\nmodel = "gpt-fake"\n` +
          `\n[discord]\ntoken = "${discord.token}"\napi_url = "${discord.apiUrl}"\n`,
      );
      const launched = launch(bin, ['start', '--config', config], elsewhere, env);
      try {
        await waitFor(() => /channel adapter connected/.test(launched.output()), 'Discord to connect', 60_000);
        await run(bin, ['user', 'add', 'carol', '--config', config], { cwd: elsewhere, env });
        await run(bin, ['link', 'discord', USER_ID, 'carol', '--config', config], { cwd: elsewhere, env });
        llm.enqueue({ text: 'Answered from the installed package.' });
        const mention = discord.state.injectMessage(CHANNEL_ID, discord.user(USER_ID, 'carol'), 'hello', true);
        await discord.waitFor(
          () =>
            discord.state
              .messagesIn(mention.id)
              .some((message) => message.content === 'Answered from the installed package.'),
          30_000,
          'the answer in the thread',
        );
        const { code } = await assertStopsGracefully(launched, 'SIGTERM', path.join(configDir, 'data', 'sandpiper.db'));
        assert.equal(code, 0);
      } finally {
        if (launched.child.exitCode === null) launched.child.kill('SIGKILL');
        await Promise.allSettled([discord.close(), llm.close()]);
      }
    });
  },
);
