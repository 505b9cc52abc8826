/**
 * Notify through the real gateway and discord.js against the fake Discord: a notify sent twice with one
 * Idempotency-Key is delivered once, and a gateway killed (kill -9) between accepting a notify and sending it
 * delivers it once after the restart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mintServiceToken } from '../../src/gateway/http/auth.js';
import { createKnex, createStores, runMigrations } from '../../src/storage/index.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';
import { BinProcess, cleanEnv } from '../helpers/run-bin.js';

const SECRET = 'notify-outbox-secret-notify-outbox-secret';
const AUDIENCE = 'turnstone-channel';

describe('notify idempotency and outbox end to end (Discord)', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let token: string;

  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    token = await mintServiceToken({ secret: SECRET, audience: AUDIENCE }, { subject: 'ci' });
  });
  after(async () => {
    await Promise.all([discord.close(), llm.close()]);
  });

  const postedWith = (content: string) => [...discord.state.messages.values()].filter((m) => m.content === content);

  function notify(url: string, body: unknown, key: string): Promise<Response> {
    return fetch(`${url}/v1/api/notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
  }

  describe('one key, two requests', () => {
    let gateway: TestGateway;
    before(async () => {
      gateway = await startTestGateway({
        discord,
        llm,
        jwtSecret: SECRET,
        users: [['discord', '400000000000000071', 'alice']],
        waitConnected: true,
      });
    });
    after(async () => {
      await gateway.running.stop();
    });

    it('delivers one DM and answers the retry with the first result', async () => {
      const body = { target: { username: 'alice' }, title: 'Deploy', message: 'release 7 is live' };
      const first = await notify(gateway.url, body, 'release-7');
      assert.equal(first.status, 200);
      const firstBody = (await first.json()) as { results: Array<{ status: string; message_id?: string }> };
      assert.equal(firstBody.results[0]?.status, 'sent');
      const second = await notify(gateway.url, body, 'release-7');
      assert.equal(second.status, 200);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(await second.json(), firstBody);
      const dms = postedWith('**Deploy**\nrelease 7 is live');
      assert.equal(dms.length, 1, 'delivered once');
      assert.equal(dms[0]?.id, firstBody.results[0]?.message_id);
    });
  });

  describe('kill -9 between accept and send', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sp-notify-outbox-'));
    const databaseFile = path.join(dir, 'sandpiper.db');
    const processes: BinProcess[] = [];
    after(async () => {
      for (const child of processes) await child.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    function start(extraEnv: Record<string, string>): BinProcess {
      const config = path.join(dir, 'config.toml');
      writeFileSync(
        config,
        [
          '[gateway]',
          'http_port = 0',
          'notify_timeout_s = 1',
          `data_dir = ${JSON.stringify(dir)}`,
          '[database]',
          `url = ${JSON.stringify(`sqlite:${databaseFile}`)}`,
          '[log]',
          'format = "json"',
          '[discord]',
          `api_url = ${JSON.stringify(discord.apiUrl)}`,
          '[models.main]',
          'provider = "openai"',
          `base_url = ${JSON.stringify(llm.url)}`,
          'api_key = "sk-test"',
          'model = "gpt-fake"',
        ].join('\n'),
      );
      const env = cleanEnv({ SANDPIPER_JWT_SECRET: SECRET, SANDPIPER_DISCORD_TOKEN: discord.token, ...extraEnv });
      const child = new BinProcess(['start', '--config', config], dir, env);
      processes.push(child);
      return child;
    }

    async function listening(child: BinProcess): Promise<{ url: string; pid: number }> {
      const match = await child.waitFor(/"pid":(\d+)[^\n]*"msg":"http listening on (http:\/\/[0-9.:]+)"/, 60_000);
      const url = match[2] as string;
      await waitFor(
        async () =>
          ((await (await fetch(`${url}/health`)).json()) as { adapters: Record<string, string> }).adapters[
            'discord'
          ] === 'connected',
        'discord connected',
        60_000,
      );
      return { url, pid: Number(match[1]) };
    }

    it('delivers the accepted notification once after the restart', async () => {
      const knex = createKnex(`sqlite:${databaseFile}`);
      try {
        await runMigrations(knex);
        const stores = createStores(knex);
        const bob = await stores.users.createUser('bob');
        await stores.users.link('discord', '400000000000000072', bob.userId);

        const paused = start({ SANDPIPER_TEST_NOTIFY_PAUSE_MS: '600000' });
        const { url, pid } = await listening(paused);
        await paused.waitFor(/SANDPIPER_TEST_NOTIFY_PAUSE_MS is set/);
        const body = { target: { username: 'bob' }, message: 'backup 12 finished' };
        const inFlight = notify(url, body, 'backup-12').catch((error: unknown) => error);
        await waitFor(
          async () =>
            (await knex('notify_outbox').where({ content: 'backup 12 finished', status: 'accepted' })).length === 1,
          'the outbox row',
          20_000,
        );
        process.kill(pid, 'SIGKILL');
        await paused.exited;
        assert.ok((await inFlight) instanceof Error, 'the caller saw the connection drop');
        assert.equal(postedWith('backup 12 finished').length, 0, 'nothing was sent before the crash');

        const restarted = start({});
        const { url: url2 } = await listening(restarted);
        await waitFor(() => postedWith('backup 12 finished').length > 0, 'the recovered delivery', 30_000);
        await restarted.waitFor(/"msg":"notify.outbox.delivered"/);
        // The caller retries with its key: the recovered result, no second message.
        const retry = await notify(url2, body, 'backup-12');
        assert.equal(retry.status, 200);
        assert.equal(retry.headers.get('idempotent-replayed'), 'true');
        const answer = (await retry.json()) as { results: Array<{ status: string; message_id?: string }> };
        const dms = postedWith('backup 12 finished');
        assert.equal(dms.length, 1, 'delivered exactly once');
        assert.deepEqual(answer.results, [
          { channel_type: 'discord', channel_id: '400000000000000072', status: 'sent', message_id: dms[0]?.id },
        ]);
        assert.equal(discord.state.channels.get(dms[0]?.channel_id ?? '')?.type, 1, 'as a direct message');
        await restarted.stop();
      } finally {
        await knex.destroy();
      }
    });
  });
});
