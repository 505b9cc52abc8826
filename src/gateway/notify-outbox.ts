/**
 * Notify deliveries through the outbox: the targets of a request are rows (`accepted`) before any platform call
 * and are settled with the outcome after it, so a crash in between is delivered by the outbox worker after the
 * restart. With an `Idempotency-Key` the first request's result is answered again without sending.
 */
import { createHash } from 'node:crypto';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { isoFromMs } from '../shared/time.js';
import type { NotifyDeliveryStore } from '../storage/notify-delivery-store.js';
import type {
  IdempotencyClaim,
  NewOutboxEntry,
  NotifyOutboxStore,
  OutboxEntry,
  OutboxSettlement,
} from '../storage/notify-outbox-store.js';
import { HttpError } from './http/http-errors.js';
import type { NotifyDestination, NotifyResult, NotifySender } from './http/routes/notify.js';

/** How long a key replays its first result. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** A row the route is delivering is left to it this long beyond the delivery timeout before recovery may take it. */
export const OUTBOX_LEASE_MARGIN_MS = 2_000;

export interface OutboxDeliveryDeps {
  outbox: NotifyOutboxStore;
  deliveries: NotifyDeliveryStore;
  sender: NotifySender;
  logger: Logger;
  /** Per-target delivery timeout. */
  timeoutMs: number;
  /** Test hook (SANDPIPER_TEST_NOTIFY_PAUSE_MS): wait between accepting the rows and the platform calls. */
  pauseAfterAccept?: () => Promise<void>;
}

export interface OutboxTarget {
  channelType: string;
  channelId: string;
  destination: NotifyDestination;
}

export interface OutboxRequest {
  targets: readonly OutboxTarget[];
  content: string;
  wsId: string;
}

export interface OutboxAnswer {
  results: NotifyResult[];
  /** True when an `Idempotency-Key` replayed the first request's result. */
  replayed: boolean;
}

const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

/**
 * The claim of an `Idempotency-Key` header (undefined without one); 400 for a malformed key. `request` is the parsed
 * request (target as given, text, ws_id): its hash tells a retry from another request under the same key.
 */
export function idempotencyClaim(
  header: string | undefined,
  subject: string,
  request: unknown,
): IdempotencyClaim | undefined {
  if (header === undefined) return undefined;
  const key = header.trim();
  if (!KEY_FORM.test(key)) throw new HttpError(400, 'invalid Idempotency-Key: 1 to 255 visible ASCII characters');
  return { subject, key, fingerprint: createHash('sha256').update(JSON.stringify(request)).digest('hex') };
}

/** The leaseMs of rows the route delivers itself. */
export function routeLeaseMs(timeoutMs: number): number {
  return timeoutMs + OUTBOX_LEASE_MARGIN_MS;
}

function toNewEntry(target: OutboxTarget, request: OutboxRequest, sender: NotifySender): NewOutboxEntry {
  const destination =
    'userId' in target.destination
      ? { kind: 'user' as const, id: target.destination.userId }
      : { kind: 'channel' as const, id: target.destination.channelId };
  return {
    channelType: target.channelType,
    channelId: target.channelId,
    destination,
    content: request.content,
    wsId: request.wsId,
    status: sender.has(target.channelType) ? 'accepted' : 'no_adapter',
  };
}

/** The answer of a settled row (a row given up by recovery reads as failed). */
export function resultOf(entry: OutboxEntry): NotifyResult {
  const status = entry.status === 'given_up' || entry.status === 'accepted' ? 'failed' : entry.status;
  return {
    channel_type: entry.channelType,
    channel_id: entry.channelId,
    status,
    ...(entry.messageId === undefined ? {} : { message_id: entry.messageId }),
  };
}

/** Accepts the request into the outbox and delivers it, or replays the request an `Idempotency-Key` names. */
export async function deliverThroughOutbox(
  request: OutboxRequest,
  claim: IdempotencyClaim | undefined,
  deps: OutboxDeliveryDeps,
): Promise<OutboxAnswer> {
  const entries = request.targets.map((target) => toNewEntry(target, request, deps.sender));
  // Nothing to deliver and nothing to remember: no database write on this path.
  if (claim === undefined && entries.every((entry) => entry.status !== 'accepted')) {
    return {
      results: entries.map((entry) => ({
        channel_type: entry.channelType,
        channel_id: entry.channelId,
        status: 'no_adapter',
      })),
      replayed: false,
    };
  }
  const outcome = await deps.outbox.accept({
    entries,
    ...(claim === undefined ? {} : { idempotency: claim }),
    leaseMs: routeLeaseMs(deps.timeoutMs),
    keyNotBefore: isoFromMs(Date.now() - IDEMPOTENCY_WINDOW_MS),
  });
  if (outcome.kind === 'existing')
    return { results: replay(outcome.fingerprint, outcome.entries, claim), replayed: true };
  await deps.pauseAfterAccept?.();
  const results: NotifyResult[] = [];
  for (const entry of outcome.entries) {
    results.push(entry.status === 'accepted' ? resultOf(await deliverEntry(entry, deps)) : resultOf(entry));
  }
  return { results, replayed: false };
}

function replay(
  fingerprint: string,
  entries: readonly OutboxEntry[],
  claim: IdempotencyClaim | undefined,
): NotifyResult[] {
  if (fingerprint !== claim?.fingerprint) {
    throw new HttpError(422, 'Idempotency-Key was already used with a different request');
  }
  if (entries.some((entry) => entry.status === 'accepted')) {
    throw new HttpError(409, 'a request with this Idempotency-Key is still being delivered; retry shortly');
  }
  return entries.map(resultOf);
}

/** The destination of a row as the sender takes it. */
function destinationOf(entry: OutboxEntry): NotifyDestination {
  return entry.destination.kind === 'user' ? { userId: entry.destination.id } : { channelId: entry.destination.id };
}

/**
 * One platform call for a row, bounded by `timeoutMs`; records the delivery (for replies) and settles the row.
 * Returns the settled row; a failure is settled as `failed`/`timeout` unless `keepOnFailure` (recovery retries).
 */
export async function deliverEntry(
  entry: OutboxEntry,
  deps: OutboxDeliveryDeps,
  keepOnFailure = false,
): Promise<OutboxEntry> {
  const signal = AbortSignal.timeout(deps.timeoutMs);
  let settlement: OutboxSettlement;
  try {
    const sent = await Promise.race([
      deps.sender.send(entry.channelType, destinationOf(entry), entry.content, signal),
      new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
    settlement = { status: 'sent', messageId: sent.messageId, deliveredChannelId: sent.channelId };
  } catch (error) {
    const timedOut = signal.aborted;
    deps.logger.warn(
      { channelType: entry.channelType, outboxId: entry.outboxId, reason: describeError(error) },
      timedOut ? 'notify.timeout' : 'notify.failed',
    );
    if (keepOnFailure) throw error;
    settlement = { status: timedOut ? 'timeout' : 'failed' };
  }
  if (settlement.status === 'sent') await recordForReplies(entry, settlement, deps);
  await deps.outbox.settle(entry.outboxId, settlement);
  const settled: OutboxEntry = { ...entry, status: settlement.status };
  if (settlement.messageId !== undefined) settled.messageId = settlement.messageId;
  if (settlement.deliveredChannelId !== undefined) settled.deliveredChannelId = settlement.deliveredChannelId;
  return settled;
}

/** Remembers where a notification with a ws_id landed, so a reply finds its workstream (a failure is logged only: it was sent). */
async function recordForReplies(entry: OutboxEntry, sent: OutboxSettlement, deps: OutboxDeliveryDeps): Promise<void> {
  if (!entry.wsId || sent.messageId === undefined || sent.deliveredChannelId === undefined) return;
  const recipient = entry.destination.kind === 'user' ? entry.destination.id : '';
  try {
    await deps.deliveries.record({
      wsId: entry.wsId,
      channelType: entry.channelType,
      channelId: sent.deliveredChannelId,
      messageId: sent.messageId,
      recipient,
    });
  } catch (error) {
    deps.logger.error(
      { channelType: entry.channelType, outboxId: entry.outboxId, reason: describeError(error) },
      'notify.record_failed',
    );
  }
}
