/**
 * A leased shard whose login is refused (discord.js against the fake Discord, which answers 401 to a wrong token):
 * the failure is reported once, without the token, the shard is given up for its lease to go back, and nothing is
 * left as an unhandled rejection (the handshake copy kept for `disconnect` observes its own rejection).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Client, GatewayIntentBits, type ClientOptions } from 'discord.js';
import { DiscordShardClients } from '../../src/channels/discord/discord-shard-clients.js';
import { createLogger } from '../../src/shared/logger.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { waitFor } from '../helpers/wait-for.js';

const WRONG_TOKEN = 'wrong-token-that-must-not-be-logged';

describe('discord shard clients: a refused login', () => {
  let fake: FakeDiscord;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  before(async () => {
    fake = await FakeDiscord.start({ shards: 2 });
    process.on('unhandledRejection', onUnhandled);
  });
  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    await fake.close();
  });

  it('reports the failure once without the token and gives the shard up', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const options = (sharding: Partial<ClientOptions> = {}): ClientOptions => ({
      intents: [GatewayIntentBits.Guilds],
      rest: { api: fake.apiUrl, version: '10' },
      ...sharding,
    });
    const rest = new Client(options());
    const failed: number[] = [];
    const clients = new DiscordShardClients({
      rest,
      token: WRONG_TOKEN,
      count: 2,
      create: (sharding) => new Client(options(sharding)),
      wire: () => undefined,
      onReady: () => assert.fail('a refused shard is never ready'),
      onTakeover: () => assert.fail('no takeover'),
      onFailed: (shardId) => failed.push(shardId),
      logger: createLogger({ format: 'json', destination }),
    });
    try {
      clients.connect(1, undefined);
      await clients.settled();
      await waitFor(() => failed.length > 0, 'the shard given up', 15_000);
      assert.deepEqual(failed, [1]);
      assert.deepEqual(clients.shardIds(), [], 'no client is left for the shard');
      const reports = lines.filter((line) => line.msg === 'discord shard could not connect');
      assert.equal(reports.length, 1, 'reported once');
      assert.equal(reports[0]?.shard, 1);
      assert.equal(JSON.stringify(lines).includes(WRONG_TOKEN), false, 'the token is not logged');
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
    } finally {
      await clients.disconnectAll();
      await rest.destroy();
    }
  });
});
