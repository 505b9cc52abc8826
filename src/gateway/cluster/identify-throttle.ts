/**
 * Discord identify calls paced across every instance on one database (ADR 0052): a shard identifies in the bucket
 * `shard_id % max_concurrency`, and each bucket allows one identify per 5 s for the whole bot
 * (https://discord.com/developers/docs/events/gateway#sharding-max-concurrency). The slot is taken in the database
 * (IdentifySlotStore), so two instances starting together never identify twice in one bucket's window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IdentifySlotStore } from '../../storage/identify-slot-store.js';
import type { IdentifyThrottle } from './coordination.js';

/** Discord's identify window per bucket. */
export const IDENTIFY_WINDOW_MS = 5_000;

export class SharedIdentifyThrottle implements IdentifyThrottle {
  constructor(
    private readonly slots: IdentifySlotStore,
    /** Names the bot, so two bots on one database keep their own buckets. */
    private readonly bot: string,
    private readonly maxConcurrency: number,
    private readonly windowMs = IDENTIFY_WINDOW_MS,
  ) {}

  /** The bucket a shard identifies in. */
  bucketOf(shardId: number): string {
    return `discord:${this.bot}:${shardId % Math.max(1, this.maxConcurrency)}`;
  }

  /** Waits (abortably) until this instance took the bucket's slot; a database error rejects (the shard retries). */
  async waitForIdentify(shardId: number, signal: AbortSignal): Promise<void> {
    const bucket = this.bucketOf(shardId);
    for (;;) {
      signal.throwIfAborted();
      const wait = await this.slots.take(bucket, this.windowMs);
      if (wait === 0) return;
      await sleep(wait, undefined, { signal });
    }
  }
}
