/**
 * The gateway connections of a bot whose shards are leased (ADR 0022): one discord.js `Client` per held shard
 * (`shards: [id], shardCount: count`), so taking or giving up one shard never touches the sessions of the others.
 * REST (posting, editing, history) goes through the adapter's own client, which never connects a gateway.
 */
import { Events, Routes, type APIChannel, type Client, type ClientOptions } from 'discord.js';
import { untilAborted } from '../../shared/abort.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { HistorySource } from './discord-history.js';

export interface ShardClientsDeps {
  /** The REST client (never logged in to the gateway). */
  rest: Client;
  token: string;
  count: number;
  create(options: Partial<ClientOptions>): Client;
  /** Wires the adapter's event listeners (messages, interactions, states, history) to a new shard client. */
  wire(client: Client): void;
  /** A shard client's READY (the first one registers the slash commands). */
  onReady(client: Client): void;
  /** A shard taken over after the start is connected: events since `lostAtMs` may never have been handled. */
  onTakeover(lostAtMs: number): void;
  /** A shard could not connect: its lease goes back (another instance, or a later round, tries again). */
  onFailed(shardId: number): void;
  logger: Logger;
}

/** The lease side of `beforeIdentify` (the shard keeper). */
export interface ShardLeaseGate {
  /** This instance holds the shard's lease, and it outlasts an IDENTIFY sent now. */
  holdsSafely(shardId: number): boolean;
  /** Resolves when the next lease round has ended (renewed, claimed or dropped). */
  nextRound(): Promise<void>;
}

/** How long a shard may take from login to READY before it is given up (its lease goes back; a later round retries). */
const READY_TIMEOUT_MS = 60_000;

export class DiscordShardClients implements HistorySource {
  private readonly clients = new Map<number, Client>();
  private readonly ready = new Map<number, Promise<void>>();
  /** Each shard's login: it settles when the gateway handshake is over (READY, or failed for good). */
  private readonly handshakes = new Map<number, Promise<unknown>>();
  /** Ends a shard's wait for READY when it is closed before (a start must not wait for a shard given up). */
  private readonly cancelReady = new Map<number, () => void>();
  /** Shards held at `beforeIdentify` until their lease is sure; a `disconnect` closes them at once. */
  private readonly parked = new Set<number>();
  /** A `disconnect` waiting for a shard's handshake, told when the shard parks instead (it will not finish). */
  private readonly onParked = new Map<number, () => void>();
  private lease: ShardLeaseGate | undefined;

  constructor(private readonly deps: ShardClientsDeps) {}

  /** From now on a shard identifies only while `lease` says its lease holds (set before the first `connect`). */
  gateOn(lease: ShardLeaseGate): void {
    this.lease = lease;
  }

  /**
   * Runs right before a shard's IDENTIFY (the clients' identify gate): while the lease does not surely hold, the shard
   * waits for the next lease round. A renewed lease lets it identify; a lost one makes the keeper disconnect it, which
   * closes it at once and so ends this wait (discord.js then skips the IDENTIFY: the shard closed while it waited).
   */
  async beforeIdentify(shardId: number, signal: AbortSignal): Promise<void> {
    const lease = this.lease;
    if (lease === undefined || lease.holdsSafely(shardId)) return;
    this.parked.add(shardId);
    this.onParked.get(shardId)?.();
    try {
      do await untilAborted(lease.nextRound(), signal);
      while (!lease.holdsSafely(shardId));
    } finally {
      this.parked.delete(shardId);
    }
  }

  /** Shard ids with a client (connected or connecting). */
  shardIds(): number[] {
    return [...this.clients.keys()].sort((a, b) => a - b);
  }

  /** Connects one shard; `lostAtMs` (a takeover) asks for a catch-up once the shard's guilds are known. */
  connect(shardId: number, lostAtMs: number | undefined): void {
    if (this.clients.has(shardId)) return;
    const { deps } = this;
    const client = deps.create({ shards: [shardId], shardCount: deps.count });
    this.clients.set(shardId, client);
    deps.wire(client);
    const ready = new Promise<boolean>((resolve) => client.once(Events.ClientReady, () => resolve(true)));
    // A deliberate close ends the wait at once, even where discord.js's login never settles (a shard closed while it
    // waited at the identify gate).
    const closed = new Promise<boolean>((resolve) => this.cancelReady.set(shardId, () => resolve(false)));
    let timeout: NodeJS.Timeout | undefined;
    // Timeout: a shard that never becomes READY (login included) must not hold the start, or a round, for good.
    const late = new Promise<never>((_resolve, reject) => {
      timeout = setTimeout(
        () => reject(new Error(`shard ${shardId} not ready after ${READY_TIMEOUT_MS / 1000} s`)),
        READY_TIMEOUT_MS,
      );
    });
    const login = client.login(deps.token);
    // The handshake is kept only for `disconnect` to wait on, settled either way: a failed login is not this copy's to
    // report. It is observed here so it raises no unhandled rejection; `work` below carries the same rejection and
    // reports it ("discord shard could not connect", then `onFailed` gives the shard up).
    this.handshakes.set(
      shardId,
      login.catch(() => undefined),
    );
    const work = Promise.race([login.then(() => ready), late, closed])
      .then((connected) => {
        if (!connected || this.clients.get(shardId) !== client) return;
        deps.onReady(client);
        if (lostAtMs !== undefined) deps.onTakeover(lostAtMs);
      })
      .catch((error: unknown) => {
        deps.logger.error({ shard: shardId, error: describeError(error) }, 'discord shard could not connect');
        if (this.clients.get(shardId) === client) void this.disconnect(shardId).then(() => deps.onFailed(shardId));
      })
      .finally(() => clearTimeout(timeout));
    this.ready.set(shardId, work);
  }

  /** Resolves when every shard connecting now is ready (or failed). */
  async settled(): Promise<void> {
    await Promise.all([...this.ready.values()]);
  }

  /** Closes one shard's connection at once (its lease is gone or given up); its events stop here. */
  async disconnect(shardId: number): Promise<void> {
    const client = this.clients.get(shardId);
    if (!client) return;
    const handshake = this.handshakes.get(shardId);
    this.clients.delete(shardId);
    this.ready.delete(shardId);
    this.handshakes.delete(shardId);
    this.cancelReady.get(shardId)?.();
    this.cancelReady.delete(shardId);
    // No more events of any kind: a deliberate close must not read as "reconnecting" or as a gap.
    client.removeAllListeners();
    // @discordjs/ws 1.2: a destroy while the shard waits for HELLO or READY aborts that wait, whose handler destroys the
    // shard once more to reconnect; the first destroy then never resolves and the shard connects again on its own (it
    // would identify beside the shard's next holder). So a shard still in its handshake is closed when the handshake
    // is over: READY, or failed (at most READY_TIMEOUT_MS).
    // A shard parked at the identify gate is not in a handshake discord.js must finish: it is closed at once.
    if (!client.isReady() && handshake && !this.parked.has(shardId)) await this.handshakeOrParked(shardId, handshake);
    await client
      .destroy()
      .catch((error: unknown) =>
        this.deps.logger.debug({ shard: shardId, error: describeError(error) }, 'discord shard close failed'),
      );
  }

  /** Waits for a shard's handshake to end (bounded), or for the shard to park at the identify gate. */
  private async handshakeOrParked(shardId: number, handshake: Promise<unknown>): Promise<void> {
    const parked = new Promise<void>((resolve) => this.onParked.set(shardId, resolve));
    try {
      await Promise.race([boundedWait(handshake, READY_TIMEOUT_MS), parked]);
    } finally {
      this.onParked.delete(shardId);
    }
  }

  async disconnectAll(): Promise<void> {
    await Promise.all(this.shardIds().map((id) => this.disconnect(id)));
  }

  gatewayClients(): Client[] {
    return [...this.clients.values()];
  }

  /**
   * The client that can read a channel: the one caching it, else the holder of its guild's shard (one REST read of
   * the channel tells the guild). A guild on a shard held elsewhere is that instance's to catch up: undefined.
   */
  async clientFor(channelId: string): Promise<Client | undefined> {
    const cached = this.gatewayClients().find((client) => client.channels.cache.has(channelId));
    if (cached) return cached;
    const raw = (await this.deps.rest.rest.get(Routes.channel(channelId))) as APIChannel & { guild_id?: string };
    const guildId = raw.guild_id;
    // Direct messages arrive on shard 0.
    if (guildId === undefined) return this.clients.get(0);
    return this.gatewayClients().find((client) => client.guilds.cache.has(guildId));
  }
}

/** Waits for `promise` to settle, or `ms`, whichever comes first. */
async function boundedWait(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    // Purpose: timeout (the wait is bounded to ms).
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
