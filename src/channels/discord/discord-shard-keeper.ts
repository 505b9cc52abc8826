/**
 * Shard leases for a bot run by several instances on one PostgreSQL (ADR 0022): every heartbeat the keeper renews the
 * shards it holds, gives up what is above its fair share, and claims free or expired shards up to that share. It only
 * decides; the adapter connects and disconnects the shards it is told to (`ShardLinks`).
 */
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';

/** One row of `shard_leases` as the keeper reads it (the storage row type, declared here: channels never import storage). */
export interface ShardLeaseRow {
  shardId: number;
  holder: string;
  expiresAt: number;
}

/** The shard lease store's methods the keeper uses (`stores.shardLeases` fits). */
export interface ShardLeasePort {
  list(bot: string): Promise<ShardLeaseRow[]>;
  claim(
    lease: { bot: string; shardId: number; shardCount: number; holder: string },
    now: number,
    ttlMs: number,
  ): Promise<{ previous: ShardLeaseRow | undefined } | undefined>;
  renew(bot: string, holder: string, now: number, ttlMs: number): Promise<number[]>;
  release(bot: string, holder: string, now: number, shardIds?: readonly number[]): Promise<number>;
}

/** What the composition root hands the Discord adapter in cluster mode (PostgreSQL, `discord.shards` empty). */
export interface DiscordClusterOptions {
  leases: ShardLeasePort;
  /** This instance's id (the registry service id); lease holders are instance ids. */
  instanceId: string;
  heartbeatMs: number;
  ttlMs: number;
  /** Ids of the live instances that lease Discord shards (this one included or not); sets the fair share. */
  peers(): Promise<readonly string[]>;
  now?: () => number;
}

/** What the keeper asks of the adapter. `lostAtMs` is set when the shard was held before (a takeover). */
export interface ShardLinks {
  connect(shardId: number, lostAtMs: number | undefined): void;
  disconnect(shardId: number): Promise<void>;
}

export class ShardKeeper {
  private readonly held = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  /** Until when the leases renewed last are known to be ours; past it, another instance may hold them. */
  private validUntil = 0;
  /** The lease rows the last round read. */
  private rows: ShardLeaseRow[] = [];
  /**
   * Shards given up whose connection is still closing (a shard in its handshake is closed once that ends): their
   * leases stay ours, renewed with the others, until the close is done. Rounds do not wait for it, so one slow close
   * never stops the renewals of the shards still held.
   */
  private readonly leaving = new Map<number, Promise<void>>();
  /** Told when the round running (or the next one) ends. */
  private roundWaiters: Array<() => void> = [];
  private readonly now: () => number;

  constructor(
    private readonly cluster: DiscordClusterOptions,
    private readonly bot: string,
    private readonly count: number,
    private readonly links: ShardLinks,
    private readonly logger: Logger,
  ) {
    this.now = cluster.now ?? Date.now;
  }

  /** Shard ids held right now, in order. */
  shards(): number[] {
    return [...this.held].sort((a, b) => a - b);
  }

  /**
   * Whether a shard may IDENTIFY now: this instance holds its lease, and the lease outlasts one more heartbeat, so no
   * other instance can have claimed it by the time the IDENTIFY arrives (a start that stalled past its lease must not
   * identify beside the shard's new holder).
   */
  holdsSafely(shardId: number): boolean {
    return !this.stopped && this.held.has(shardId) && this.now() + this.cluster.heartbeatMs < this.validUntil;
  }

  /** Resolves when the round running now, or else the next heartbeat's, has ended. */
  nextRound(): Promise<void> {
    return new Promise((resolve) => this.roundWaiters.push(resolve));
  }

  /** Runs the first round (so the start connects what it can hold), then one round per heartbeat. */
  async start(): Promise<void> {
    await this.tick();
    // Purpose: heartbeat (shard leases are renewed and taken each round).
    this.timer = setInterval(() => void this.tick(), this.cluster.heartbeatMs);
    this.timer.unref();
  }

  /** One round; rounds never overlap (a slow database makes the next one wait for this one). */
  tick(): Promise<void> {
    this.ticking ??= this.round().finally(() => {
      this.ticking = undefined;
      for (const resolve of this.roundWaiters.splice(0)) resolve();
    });
    return this.ticking;
  }

  /** Stops the rounds, disconnects every shard, then releases the leases, so a successor never identifies beside us. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // Waits for the round in flight; `round` logs its own failures and never rejects, so nothing is lost here.
    await this.ticking?.catch(() => undefined);
    await Promise.all(this.leaving.values());
    const held = this.shards();
    this.held.clear();
    await Promise.all(held.map((id) => this.links.disconnect(id)));
    if (held.length > 0) await this.cluster.leases.release(this.bot, this.cluster.instanceId, this.now(), held);
  }

  /** Gives one shard back (it could not connect); a later round may claim it again, here or elsewhere. */
  async giveUp(shardId: number): Promise<void> {
    if (!this.held.delete(shardId)) return;
    await this.cluster.leases
      .release(this.bot, this.cluster.instanceId, this.now(), [shardId])
      .catch((error: unknown) =>
        this.logger.warn({ shard: shardId, error: describeError(error) }, 'discord shard lease not released'),
      );
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.renew();
      const share = await this.fairShare();
      this.giveUpAbove(share);
      await this.claimUpTo(share);
    } catch (error) {
      this.logger.warn({ error: describeError(error), shards: this.shards() }, 'discord shard lease round failed');
      // Without a renewal the leases run out; disconnect before another instance may take them (never two holders).
      if (this.now() + this.cluster.heartbeatMs >= this.validUntil)
        this.drop(this.shards(), 'the leases could not be renewed');
    }
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0 && this.leaving.size === 0) return;
    const now = this.now();
    const still = new Set(await this.cluster.leases.renew(this.bot, this.cluster.instanceId, now, this.cluster.ttlMs));
    this.validUntil = now + this.cluster.ttlMs;
    this.drop(
      this.shards().filter((id) => !still.has(id)),
      'the lease was lost',
    );
  }

  /** ceil(shards / live instances): live = this one, the peers, and every holder of a running lease. */
  private async fairShare(): Promise<number> {
    const now = this.now();
    const rows = await this.cluster.leases.list(this.bot);
    const live = new Set([this.cluster.instanceId, ...(await this.cluster.peers())]);
    for (const row of rows) if (row.holder !== '' && row.expiresAt > now) live.add(row.holder);
    this.rows = rows;
    return Math.ceil(this.count / live.size);
  }

  /** Above the share (another instance joined), the highest shard ids go back, for the newcomer to claim. */
  private giveUpAbove(share: number): void {
    const extra = this.shards().slice(share);
    if (extra.length === 0) return;
    this.logger.info({ shards: extra, share }, 'discord shards released for another instance');
    this.leave(extra, { release: true });
  }

  private async claimUpTo(share: number): Promise<void> {
    const now = this.now();
    const running = new Set(
      this.rows.filter((row) => row.holder !== '' && row.expiresAt > now).map((row) => row.shardId),
    );
    for (let id = 0; id < this.count && this.held.size < share && !this.stopped; id += 1) {
      if (this.held.has(id) || this.leaving.has(id) || running.has(id)) continue;
      const claim = await this.cluster.leases.claim(
        { bot: this.bot, shardId: id, shardCount: this.count, holder: this.cluster.instanceId },
        now,
        this.cluster.ttlMs,
      );
      if (!claim) continue;
      this.held.add(id);
      this.validUntil = Math.max(this.validUntil, now + this.cluster.ttlMs);
      const previous = claim.previous;
      // The previous holder's last renewal (a release also ran out from there): what came after may be unhandled.
      const lostAtMs = previous ? previous.expiresAt - this.cluster.ttlMs : undefined;
      this.logger.info({ shard: id, previous: previous?.holder ?? null }, 'discord shard lease claimed');
      this.links.connect(id, lostAtMs);
    }
  }

  private drop(ids: readonly number[], reason: string): void {
    if (ids.length === 0) return;
    this.logger.warn({ shards: ids, reason }, 'discord shards disconnected');
    this.leave(ids, { release: false });
  }

  /** Stops holding `ids` and closes their connections, then (`release`) gives their leases back; see `leaving`. */
  private leave(ids: readonly number[], { release }: { release: boolean }): void {
    for (const id of ids) {
      this.held.delete(id);
      const closing = this.links
        .disconnect(id)
        .then(async () => {
          if (release) await this.cluster.leases.release(this.bot, this.cluster.instanceId, this.now(), [id]);
        })
        .catch((error: unknown) =>
          this.logger.warn({ shard: id, error: describeError(error) }, 'discord shard lease not released'),
        )
        .finally(() => this.leaving.delete(id));
      this.leaving.set(id, closing);
    }
  }
}
