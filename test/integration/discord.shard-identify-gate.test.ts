/**
 * A leased shard identifies only while its lease surely holds (discord.js against the fake Discord, the lease side
 * driven by the test). A start that stalls past its lease must not IDENTIFY beside the shard's new holder (fresh-clone
 * CI saw a starved instance do this once in about fifteen runs of cluster.failover): the shard waits at the gate for
 * the next lease round, and identifies when the round renewed the lease; when the lease is gone, the keeper's
 * disconnect closes the waiting shard at once (it does not wait for a handshake that cannot end) and nothing identifies.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Client } from 'discord.js';
import { discordClientOptions } from '../../src/channels/discord/discord-client-options.js';
import { DiscordShardClients, type ShardLeaseGate } from '../../src/channels/discord/discord-shard-clients.js';
import { createLogger } from '../../src/shared/logger.js';
import { FakeDiscord } from '../fakes/fake-discord.js';
import { waitFor } from '../helpers/wait-for.js';

/** The keeper's side, by hand: whether the lease holds, and the end of each round when the test says so. */
class TestLease implements ShardLeaseGate {
  safe = false;
  asked = 0;
  private waiters: Array<() => void> = [];

  holdsSafely(): boolean {
    this.asked += 1;
    return this.safe;
  }

  nextRound(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  endRound(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}

describe('discord shard clients: the identify gate of a leased shard', () => {
  let fake: FakeDiscord;
  before(async () => {
    fake = await FakeDiscord.start({ shards: 2 });
  });
  after(async () => {
    await fake.close();
  });

  function shardClients(
    lease: TestLease,
    lines: Array<Record<string, unknown>>,
    readied: number[],
  ): DiscordShardClients {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const config = { channel_ids: [], api_url: fake.apiUrl };
    const clients: DiscordShardClients = new DiscordShardClients({
      rest: new Client(discordClientOptions(config, { identifyThrottle: false })),
      token: fake.token,
      count: 2,
      create: (sharding) =>
        new Client(
          discordClientOptions(config, { identifyThrottle: false }, sharding, (shardId, signal) =>
            clients.beforeIdentify(shardId, signal),
          ),
        ),
      wire: () => undefined,
      onReady: (client) => readied.push(client.ws.shards.firstKey() ?? -1),
      onTakeover: () => assert.fail('no takeover'),
      onFailed: () => assert.fail('no shard fails'),
      logger: createLogger({ format: 'json', destination }),
    });
    clients.gateOn(lease);
    return clients;
  }

  it('waits for the next lease round, then identifies once the round renewed the lease', async () => {
    const lease = new TestLease();
    const readied: number[] = [];
    const clients = shardClients(lease, [], readied);
    const identifiesBefore = fake.gateway.identifies;
    try {
      clients.connect(1, undefined);
      await waitFor(() => lease.asked > 0, 'the shard at the identify gate', 15_000);
      assert.equal(fake.gateway.identifies, identifiesBefore, 'no IDENTIFY while the lease is unsure');
      lease.endRound(); // a round that did not renew: the shard keeps waiting
      await waitFor(() => lease.asked > 1, 'the gate asking again after the round', 15_000);
      assert.equal(fake.gateway.identifies, identifiesBefore, 'still no IDENTIFY');
      lease.safe = true;
      lease.endRound();
      await clients.settled();
      assert.deepEqual(readied, [1]);
      assert.equal(fake.gateway.identifies, identifiesBefore + 1, 'one IDENTIFY, after the renewal');
    } finally {
      await clients.disconnectAll();
    }
  });

  it('a shard whose lease is gone never identifies, and its disconnect closes it at once', async () => {
    const lease = new TestLease();
    const lines: Array<Record<string, unknown>> = [];
    const readied: number[] = [];
    const clients = shardClients(lease, lines, readied);
    const identifiesBefore = fake.gateway.identifies;
    clients.connect(0, undefined);
    await waitFor(() => lease.asked > 0, 'the shard at the identify gate', 15_000);
    // The keeper's round found the lease lost: it disconnects the shard (the gate is still waiting for a round).
    let disconnected = false;
    void clients.disconnect(0).then(() => (disconnected = true));
    // Before the fix the disconnect waited for the handshake, which waited at the gate: 60 s, then the IDENTIFY.
    await waitFor(() => disconnected, 'the disconnect of the waiting shard', 10_000);
    await clients.settled();
    assert.deepEqual(clients.shardIds(), []);
    assert.deepEqual(readied, [], 'never ready');
    assert.equal(fake.gateway.identifies, identifiesBefore, 'never identified');
    assert.equal(fake.gateway.duplicateIdentifies, 0);
    assert.deepEqual(
      lines.filter((line) => line.msg === 'discord shard could not connect'),
      [],
      'a deliberate close is not reported as a failure',
    );
  });
});
