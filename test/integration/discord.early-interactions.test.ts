/** End to end: interactions that reach discord.js while it is still getting ready are answered, not dropped. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDiscordAdapter } from '../../src/channels/discord/index.js';
import { loadConfig } from '../../src/config/index.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { CHANNEL_ID } from '../fakes/fake-discord-harness.js';
import { FakeDiscord, type FakeInteraction } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';

describe('discord interactions before the client is ready', () => {
  let fake: FakeDiscord;
  let llm: FakeLlmServer;
  let db: TestStores;
  let runtime: AgentRuntime | undefined;
  let gateway: Gateway | undefined;
  let dir: string;

  before(async () => {
    [fake, llm, db] = await Promise.all([FakeDiscord.start(), startFakeLlmServer(), createTestStores()]);
    dir = mkdtempSync(join(tmpdir(), 'sp-discord-early-'));
  });

  after(async () => {
    await gateway?.stop();
    await runtime?.close();
    await Promise.allSettled([fake.close(), llm.close(), db.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function startGateway(): Promise<void> {
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: {
        'gateway.data_dir': dir,
        'models.fake.provider': 'openai',
        'models.fake.base_url': llm.url,
        'models.fake.api_key': 'k',
        'models.fake.model': 'm',
        'discord.token': fake.token,
        'discord.api_url': fake.apiUrl,
      },
    });
    const logger = createSilentLogger();
    runtime = await createAgentRuntime(config, db.stores, logger, { evictIntervalMs: 0 });
    gateway = createGateway({
      config,
      adapters: [createDiscordAdapter(config.discord, logger)],
      manager: runtime.manager,
      stores: db.stores,
      logger,
    });
    await gateway.start(new AbortController().signal);
  }

  const answered = (interaction: FakeInteraction, what: string): Promise<string> =>
    fake.waitFor(() => fake.state.interactions.get(interaction.id)?.reply, 20_000, what);

  it('answers a slash command and a button click that arrive between READY and the guilds', async () => {
    fake.gateway.holdUntilIdentify = true;
    const eve = fake.user('400000000000000501', 'eve');
    const command = fake.state.slashCommand('unlink', CHANNEL_ID, eve);
    const card = fake.state.createMessage(CHANNEL_ID, fake.state.bot, { content: 'an old card' });
    const click = fake.state.clickButton(card.id, 'sp:approve:gone0001', eve);
    await startGateway();

    assert.equal(await answered(command, 'command answer'), 'No linked account found.');
    assert.match(await answered(click, 'click answer'), /not linked/);
    for (const interaction of [command, click]) {
      const seen = fake.state.interactions.get(interaction.id);
      assert.ok(seen && seen.callbacks.length > 0, 'acknowledged');
      assert.equal(seen.ephemeral, true, 'answered privately');
    }
  });
});
