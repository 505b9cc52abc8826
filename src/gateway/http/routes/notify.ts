/** `POST /v1/api/notify`: JWT-authenticated delivery of a message to linked users or channels. */
import { Hono } from 'hono';
import type { Logger } from '../../../shared/logger.js';
import type { NotifyDeliveryStore } from '../../../storage/notify-delivery-store.js';
import type { NotifyOutboxStore } from '../../../storage/notify-outbox-store.js';
import { deliverThroughOutbox, idempotencyClaim, type OutboxRequest } from '../../notify-outbox.js';
import type { ChannelLink, UserStore } from '../../../storage/user-store.js';
import { verifyBearer, type JwtSettings } from '../auth.js';
import { HttpError } from '../http-errors.js';
import { parseNotifyRequest, type NotifyTarget } from './notify-request.js';

/** Where a notification goes: a channel/thread by id, or a platform user (direct message). */
export type NotifyDestination = { channelId: string } | { userId: string };

/** Delivers notifications through the running channel adapters. */
export interface NotifySender {
  /** Whether an adapter for this platform is running. */
  has(channelType: string): boolean;
  /** Posts the content; resolves with the posted message and the channel it landed in. */
  send(
    channelType: string,
    destination: NotifyDestination,
    content: string,
    signal: AbortSignal,
  ): Promise<{ messageId: string; channelId: string }>;
}

export interface NotifyRouteDeps {
  jwt: JwtSettings;
  users: UserStore;
  deliveries: NotifyDeliveryStore;
  /** Every delivery is a row here before the platform call; `Idempotency-Key` results are kept here. */
  outbox: NotifyOutboxStore;
  sender: NotifySender;
  logger: Logger;
  /** Per-target delivery timeout (default 30 s). */
  timeoutMs?: number;
  /** Clock of the username cache (tests). */
  now?: () => number;
  /** Test hook only (SANDPIPER_TEST_NOTIFY_PAUSE_MS): waits between the outbox insert and the platform calls. */
  pauseAfterAccept?: () => Promise<void>;
}

interface Resolved {
  channelType: string;
  channelId: string;
  destination: NotifyDestination;
}

export interface NotifyResult {
  channel_type: string;
  channel_id: string;
  status: 'sent' | 'no_adapter' | 'timeout' | 'failed';
  message_id?: string;
}

/**
 * How long a username's links are remembered by the notify route (hits and misses). A user or link created or
 * removed meanwhile (CLI, `/link`) is seen by notifications within this time.
 */
export const NOTIFY_USER_CACHE_TTL_MS = 5_000;
const USER_CACHE_LIMIT = 4096;

type LinkLookup = (username: string) => Promise<readonly ChannelLink[]>;

/** Username → links, read through a short-lived bounded cache, so a burst of notifications costs one lookup. */
function cachedLinks(users: UserStore, now: () => number): LinkLookup {
  const cache = new Map<string, { links: readonly ChannelLink[]; at: number }>();
  return async (username) => {
    const hit = cache.get(username);
    if (hit !== undefined && now() - hit.at < NOTIFY_USER_CACHE_TTL_MS) return hit.links;
    const user = await users.getUserByUsername(username);
    const links = user ? await users.listLinks(user.userId) : [];
    cache.delete(username);
    cache.set(username, { links, at: now() });
    if (cache.size > USER_CACHE_LIMIT) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    return links;
  };
}

export const NOTIFY_PATH = '/v1/api/notify';

/** The route: auth, validation, outbox delivery and a log line; an HttpError for bad input. */
export function createNotifyRoutes(deps: NotifyRouteDeps): Hono {
  const linksOf = cachedLinks(deps.users, deps.now ?? Date.now);
  const outboxDeps = { ...deps, timeoutMs: deps.timeoutMs ?? 30_000 };
  const routes = new Hono();
  routes.post(NOTIFY_PATH, async (context) => {
    const principal = await verifyBearer(context.req.header('authorization'), deps.jwt);
    const request = parseNotifyRequest(await context.req.text());
    const claim = idempotencyClaim(context.req.header('idempotency-key'), principal.subject, request);
    const outboxRequest: OutboxRequest = {
      targets: await resolveTargets(request.target, linksOf),
      content: request.content,
      wsId: request.wsId,
    };
    const { results, replayed } = await deliverThroughOutbox(outboxRequest, claim, outboxDeps);
    let sent = 0;
    for (const result of results) if (result.status === 'sent') sent += 1;
    deps.logger.info({ subject: principal.subject, targets: results.length, sent, replayed }, 'notify.delivered');
    if (replayed) context.header('Idempotent-Replayed', 'true');
    return context.json({ results });
  });
  return routes;
}

async function resolveTargets(target: NotifyTarget, linksOf: LinkLookup): Promise<Resolved[]> {
  if (target.kind === 'channel') {
    return [
      { channelType: target.channelType, channelId: target.channelId, destination: { channelId: target.channelId } },
    ];
  }
  const links = await linksOf(target.username);
  if (links.length === 0) throw new HttpError(404, 'target not found or has no linked channels');
  return links.map((link) => ({
    channelType: link.channelType,
    channelId: link.channelUserId,
    destination: { userId: link.channelUserId },
  }));
}
