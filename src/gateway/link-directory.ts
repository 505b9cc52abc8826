/**
 * Every linked platform identity in memory, for a single instance on SQLite: a message's "who is this?" is answered
 * without a query, for a first-time writer too. An identity it does not hold is looked up in the database (a link made
 * by another process a moment ago works at once). What it holds is trusted while it is current:
 *
 * - a link or unlink through this process's user store (`/link`, `/unlink`) marks it stale at once and reloads it;
 * - a commit by another process (the CLI's `sandpiper unlink`) is seen by the next `PRAGMA data_version` poll
 *   (`POLL_MS`), which does the same: an unlink elsewhere applies within a second (the TTL cache took 30 s);
 * - while it is stale or loading, lookups go to the database as before (the caller's own path).
 *
 * Above `DIRECTORY_LIMIT` identities it stays off (the database path serves, as in a cluster). ADR 0029. Whether
 * there is one is the coordination port's call (LocalCoordination, ADR 0052).
 */
import type { ChangeFeed } from '../storage/link-changes.js';
import type { UserStore } from '../storage/user-store.js';
import type { Logger } from '../shared/logger.js';
import { describeError } from '../shared/errors.js';
import type { LinkedUser } from './router.js';

export const DIRECTORY_LIMIT = 50_000;
/** How often another process's commits are looked for (they show within this time). */
export const POLL_MS = 1_000;

export class LinkDirectory {
  /** `platform:platformUserId` → user; undefined while stale, loading or off. */
  private links: Map<string, LinkedUser> | undefined;
  /** Bumped by every invalidation: a load that started before one is not trusted. */
  private generation = 0;
  private off = false;
  private stopWatching: (() => void) | undefined;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly users: Pick<UserStore, 'listLinkedUsers'>,
    private readonly changes: ChangeFeed,
    private readonly logger: Logger,
  ) {}

  /** Starts watching for other processes' commits, then loads; stops with `signal`. */
  async start(signal: AbortSignal): Promise<void> {
    const watch = this.changes.watch(() => this.invalidate(), POLL_MS);
    this.stopWatching = watch.stop;
    signal.addEventListener('abort', () => this.stop(), { once: true });
    await watch.ready;
    await this.load();
  }

  /** Whether the directory is in use (it may be stale for a moment); off after `stop` or above the limit. */
  get active(): boolean {
    return !this.off;
  }

  stop(): void {
    this.stopWatching?.();
    clearTimeout(this.retry);
    this.links = undefined;
    this.off = true;
  }

  /**
   * The linked user, or undefined when the directory cannot say: not loaded, stale, or an identity it does not hold
   * (the database is asked then, so a link made a moment ago by another process works at once).
   */
  lookup(platform: string, platformUserId: string): LinkedUser | undefined {
    return this.links?.get(`${platform}:${platformUserId}`);
  }

  /** A link changed (here or elsewhere): lookups ask the database until the reload finished. */
  invalidate(): void {
    if (this.off) return;
    this.generation++;
    this.links = undefined;
    void this.load();
  }

  private async load(): Promise<void> {
    const generation = this.generation;
    try {
      const identities = await this.users.listLinkedUsers(DIRECTORY_LIMIT + 1);
      if (generation !== this.generation || this.off) return;
      if (identities.length > DIRECTORY_LIMIT) {
        this.logger.info(
          { limit: DIRECTORY_LIMIT },
          'more linked identities than the link directory holds; each lookup asks the database',
        );
        this.stop();
        return;
      }
      const links = new Map<string, LinkedUser>();
      for (const { channelType, channelUserId, user } of identities) {
        links.set(`${channelType}:${channelUserId}`, {
          userId: user.userId,
          username: user.username,
          isAdmin: user.isAdmin,
        });
      }
      this.links = links;
    } catch (error) {
      // Stale stays stale (lookups keep going to the database) until a later load works.
      this.logger.warn({ error: describeError(error) }, 'could not load the link directory');
      if (generation !== this.generation || this.off) return;
      // Purpose: backoff (a failed load is retried after POLL_MS).
      this.retry = setTimeout(() => void this.load(), POLL_MS);
      this.retry.unref();
    }
  }
}
