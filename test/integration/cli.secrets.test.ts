/**
 * The real `sandpiper` bin started with platform tokens and secrets: none of them in its logs at debug level nor in a
 * notify's output, both adapters connected, exit 0 on SIGINT (also after a failed Discord login).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { FakeSlack } from '../fakes/fake-slack.js';
import { cleanEnv, runBinAsync, StartedBins } from '../helpers/run-bin.js';
import { runCliInProcess } from '../helpers/run-cli-in-process.js';

const bins = new StartedBins();
let dir: string;
after(() => {
  bins.killAll();
  rmSync(dir, { recursive: true, force: true });
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

  before(async () => {
    [discord, slack] = await Promise.all([FakeDiscord.start({ token: secrets.discord }), FakeSlack.start()]);
    dir = mkdtempSync(path.join(tmpdir(), 'sp-cli-secrets-'));
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
    const child = bins.start(['start', '--log-level', 'debug'], dir, env);
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
    // The repeat is the command's behaviour: in this process (runCli, as the bin runs it).
    const once = await runCliInProcess(keyed, { cwd: dir, env: notifyEnv });
    const again = await runCliInProcess(keyed, { cwd: dir, env: notifyEnv });
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
    const child = bins.start(
      ['start', '--config', path.join(dir, 'missing-discord.toml')],
      dir,
      cleanEnv({ SANDPIPER_HTTP_PORT: '0', SANDPIPER_DISCORD_TOKEN: secrets.discord }),
    );
    await child.waitFor(/start discord failed/);
    assert.equal(await child.stop('SIGINT'), 0, child.output.slice(-1500));
  });
});
