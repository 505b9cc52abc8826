/** Thread ↔ workstream routes, platform-user links and ownership, with a cache in front of the tables. */
import { LRUCache } from 'lru-cache';
import type { Workstream, WorkstreamManager } from '../agent/workstream-api.js';
import { localPlacement, type Placement } from './cluster/coordination.js';
import type { Stores } from '../storage/stores.js';
import type { User } from '../storage/user-store.js';
import { TickBatch } from '../shared/tick-batch.js';
import type { LinkDirectory } from './link-directory.js';

const CACHE_LIMIT = 4096;
/**
 * How long a linked user is remembered. Links made or removed through the gateway (`/link`, `/unlink`) apply at
 * once; the CLI (`sandpiper link`/`unlink`, another process) and a deleted user take effect within this time.
 */
export const LINK_CACHE_TTL_MS = 30_000;

export interface LinkedUser {
  userId: string;
  username: string;
  isAdmin: boolean;
}

/** What happened to a thread whose workstream is gone or closed. */
export type Reactivation = { status: 'reactivated'; ws: Workstream } | { status: 'closed' } | { status: 'not-allowed' };

export class Router {
  /** `platform:channelId` → wsId; only hits are cached, a cache in front of `channel_routes`. */
  private readonly routes = new LRUCache<string, string>({ max: CACHE_LIMIT });
  /** `platform:platformUserId` → linked user and when it was read; only hits are cached. */
  private readonly users = new LRUCache<string, { user: LinkedUser; at: number }>({ max: CACHE_LIMIT });
  /** Lookups of one platform made in the same event-loop turn share one query (a burst of new writers). */
  private readonly lookups = new Map<string, TickBatch<User>>();
  private readonly directory: LinkDirectory | undefined;
  private readonly locate: (wsId: string) => Promise<Placement | undefined>;

  constructor(
    private readonly stores: Stores,
    private readonly manager: WorkstreamManager,
    private readonly now: () => number = Date.now,
    /**
     * Link lookup and placement from the coordination port (ADR 0052): a single instance keeps all links in memory
     * (lookups it cannot answer go to the database uncached); without it, every workstream is local.
     */
    coordination?: { directory: LinkDirectory | undefined; locate(wsId: string): Promise<Placement | undefined> },
  ) {
    this.directory = coordination?.directory;
    this.locate = coordination?.locate ?? (async (wsId) => localPlacement(await this.manager.get(wsId)));
  }

  /** Loads the link directory, when there is one (gateway start; it stops with `signal`). */
  async startDirectory(signal: AbortSignal): Promise<void> {
    await this.directory?.start(signal);
  }

  /** The linked user behind a platform identity, or undefined when the identity is not linked. */
  async linkedUser(platform: string, platformUserId: string): Promise<LinkedUser | undefined> {
    const known = this.directory?.lookup(platform, platformUserId);
    if (known !== undefined) return known;
    if (this.directory?.active === true) return this.readLinkedUser(platform, platformUserId);
    const key = `${platform}:${platformUserId}`;
    const cached = this.users.get(key);
    if (cached !== undefined && this.now() - cached.at < LINK_CACHE_TTL_MS) return cached.user;
    this.users.delete(key);
    const linked = await this.readLinkedUser(platform, platformUserId);
    if (linked !== undefined) this.users.set(key, { user: linked, at: this.now() });
    return linked;
  }

  private async readLinkedUser(platform: string, platformUserId: string): Promise<LinkedUser | undefined> {
    const user = await this.lookupsOf(platform).load(platformUserId);
    return user ? { userId: user.userId, username: user.username, isAdmin: user.isAdmin } : undefined;
  }

  private lookupsOf(platform: string): TickBatch<User> {
    let batch = this.lookups.get(platform);
    if (batch === undefined) {
      batch = new TickBatch((ids) => this.stores.users.getLinkedUsers(platform, ids));
      this.lookups.set(platform, batch);
    }
    return batch;
  }

  /** A platform identity was linked or unlinked here: the next message reads the link again. */
  forgetUser(platform: string, platformUserId: string): void {
    this.users.delete(`${platform}:${platformUserId}`);
  }

  /** The workstream id routed from a thread, or undefined when the thread is not ours. */
  async routeFor(platform: string, channelId: string): Promise<string | undefined> {
    const key = `${platform}:${channelId}`;
    const cached = this.routes.get(key);
    if (cached !== undefined) return cached;
    const route = await this.stores.routes.getRoute(platform, channelId);
    if (route) this.remember(key, route.wsId);
    return route?.wsId;
  }

  /** Creates a workstream owned by `ownerUserId` and routes the thread to it (the route records the owner). */
  async createForThread(
    platform: string,
    channelId: string,
    ownerUserId: string,
    name: string,
    modelAlias?: string,
  ): Promise<Workstream> {
    // Row and route are one transaction, committed while the first turn starts (WorkstreamManager.create).
    const route = { channelType: platform, channelId };
    const ws = await this.manager.create({
      ownerUserId,
      name,
      route,
      ...(modelAlias === undefined ? {} : { modelAlias }),
    });
    this.remember(`${platform}:${channelId}`, ws.wsId);
    return ws;
  }

  /** Routes a conversation to a new workstream in place of its current one (a DM conversation closed or gone idle). */
  async replaceRoute(platform: string, channelId: string, ownerUserId: string, name: string): Promise<Workstream> {
    await this.stores.routes.deleteRoute(platform, channelId);
    this.routes.delete(`${platform}:${channelId}`);
    return this.createForThread(platform, channelId, ownerUserId, name);
  }

  /**
   * The thread's workstream row is gone (deleted by an admin): routes the thread to a new workstream, so the thread
   * keeps working. It belongs to the thread's original owner (recorded on the route) while that user exists, else to
   * the writer. `closed` when the old workstream still exists; `not-allowed` (nothing changes) when the writer may
   * not write to the owner's workstream.
   */
  async reactivate(
    platform: string,
    channelId: string,
    oldWsId: string,
    writer: LinkedUser,
    name: string,
    participants: 'owner' | 'linked',
  ): Promise<Reactivation> {
    if (await this.stores.workstreams.get(oldWsId)) return { status: 'closed' };
    const ownerUserId = (await this.originalOwner(platform, channelId)) ?? writer.userId;
    if (participants === 'owner' && ownerUserId !== writer.userId) return { status: 'not-allowed' };
    await this.stores.routes.deleteRoute(platform, channelId);
    this.routes.delete(`${platform}:${channelId}`);
    return { status: 'reactivated', ws: await this.createForThread(platform, channelId, ownerUserId, name) };
  }

  /** The owner recorded on a thread's route, when that user still exists. */
  private async originalOwner(platform: string, channelId: string): Promise<string | undefined> {
    const recorded = (await this.stores.routes.getRoute(platform, channelId))?.ownerUserId;
    if (!recorded) return undefined;
    return (await this.stores.users.getUser(recorded)) ? recorded : undefined;
  }

  /**
   * Where the workstream runs: live here (restored from the database when evicted or after a restart) or on another
   * instance; undefined when closed or gone.
   */
  open(wsId: string): Promise<Placement | undefined> {
    return this.locate(wsId);
  }

  /** The thread a workstream lives in, for rendering after a restart. */
  async homeOf(wsId: string): Promise<{ platform: string; channelId: string } | undefined> {
    const route = await this.stores.routes.getRouteByWorkstream(wsId);
    return route ? { platform: route.channelType, channelId: route.channelId } : undefined;
  }

  /** Whether this user may drive the workstream from the thread. */
  mayWrite(ws: { ownerUserId: string }, user: LinkedUser, participants: 'owner' | 'linked'): boolean {
    return participants === 'linked' || ws.ownerUserId === user.userId;
  }

  private remember(key: string, wsId: string): void {
    this.routes.set(key, wsId);
  }
}
