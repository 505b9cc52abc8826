/**
 * The `notify` tool: delivers a notification through a healthy channel gateway from the services table
 * (`POST <url>/v1/api/notify` with a service token), the next gateway on failure, 3 attempts (1 s, 3 s
 * pauses), at most 5 per turn, with one `Idempotency-Key` per call so a retry never delivers twice. The model
 * only ever sees the outcome, never URLs or error details.
 */
import { describeError } from '../../../shared/errors.js';
import { newHexId } from '../../../shared/ids.js';
import type { ServiceStore } from '../../../storage/service-store.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

export const MAX_NOTIFY_CHARS = 2000;
export const MAX_NOTIFY_PER_TURN = 5;
/** Heartbeat age within which a gateway counts as healthy. */
export const GATEWAY_MAX_AGE_SECONDS = 120;
const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 3000];
const REQUEST_TIMEOUT_MS = 10_000;
/** Turns whose counters are kept (oldest dropped first). */
const COUNTER_TURNS = 1000;

/** The conversation's owner: the one target a notification goes to without a card. */
export interface NotifyOwner {
  username: string;
  /** The owner's linked chat accounts (a channel target naming one is a direct message to the owner). */
  links: readonly { channelType: string; channelUserId: string }[];
}

export interface NotifyHandlerOptions {
  services: Pick<ServiceStore, 'listHealthy'>;
  /** The owner of a workstream; a target that is not the owner (or an unknown owner) needs an approval card. */
  ownerOf?: (wsId: string) => Promise<NotifyOwner | undefined>;
  /** The `Authorization` header value (`Bearer <jwt>`), or undefined when no secret is configured. */
  authorization: () => Promise<string | undefined>;
  /** Pauses between attempts (tests shorten them); default 1 s then 3 s. */
  retryDelaysMs?: readonly number[];
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
}

type Target = { username: string } | { channel_type: string; channel_id: string };

interface NotifyArgs {
  message: string;
  title: string;
  target: Target;
}

const str = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** Validated arguments, or the error text the notify tool returns to the model. */
function readArgs(args: Record<string, unknown>): NotifyArgs | string {
  const message = str(args['message']);
  const username = str(args['username']);
  const channelType = str(args['channel_type']);
  const channelId = str(args['channel_id']);
  if (message === '') return 'Error: message is required';
  if (message.length > MAX_NOTIFY_CHARS) return `Error: message exceeds ${MAX_NOTIFY_CHARS} character limit`;
  if (username && channelType && channelId)
    return 'Error: provide either username or channel_type+channel_id, not both';
  if (channelType && !channelId) return 'Error: channel_id is required when channel_type is provided';
  if (channelId && !channelType) return 'Error: channel_type is required when channel_id is provided';
  if (!username && !channelType) return 'Error: provide username or channel_type+channel_id';
  const target: Target = username ? { username } : { channel_type: channelType, channel_id: channelId };
  return { message, title: str(args['title']), target };
}

/** True when the notification goes to the conversation's owner only (by username, or to one of their own accounts). */
function targetsOwner(target: Target, owner: NotifyOwner | undefined): boolean {
  if (owner === undefined) return false;
  if ('username' in target) return target.username === owner.username;
  return owner.links.some(
    (link) => link.channelType === target.channel_type && link.channelUserId === target.channel_id,
  );
}

/** Auto-approved toward the conversation's owner; any other target (another person, a channel) asks with a card. */
async function prepare(
  args: Record<string, unknown>,
  context: ToolContext,
  options: NotifyHandlerOptions,
): Promise<ToolPreparation> {
  const parsed = readArgs(args);
  if (typeof parsed === 'string') {
    return {
      header: `✗ notify: ${parsed.replace(/^Error:\s*/, '')}`,
      preview: '',
      needsApproval: false,
      approvalLabel: 'notify',
      error: parsed,
    };
  }
  const to =
    'username' in parsed.target
      ? `@${parsed.target.username}`
      : `${parsed.target.channel_type}:${parsed.target.channel_id}`;
  const preview = parsed.message.length > 120 ? `${parsed.message.slice(0, 120)}...` : parsed.message;
  const owner = await options.ownerOf?.(context.workstreamId);
  const toOwner = targetsOwner(parsed.target, owner);
  return {
    header: `✉ notify → ${to}${toOwner ? '' : " (not the conversation's owner)"}`,
    preview,
    needsApproval: !toOwner,
    approvalLabel: 'notify',
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    // Purpose: backoff (a pause between delivery attempts), cancelled by the signal.
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The `Idempotency-Key` of one tool call: kept across attempts whose outcome is unknown (a timeout, a dropped
 * connection, a 5xx or a 409), so a retry never sends twice; replaced after a definite "not delivered".
 */
interface CallKey {
  value: string;
}

/** True when the gateway answered 2xx with at least one `sent` result. */
async function postOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  key: CallKey,
  context: ToolContext,
  options: NotifyHandlerOptions,
): Promise<boolean> {
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS)]);
  const response = await (options.fetch ?? fetch)(url, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': key.value },
    body,
    signal,
  });
  const answer = (await response.json().catch(() => ({}))) as { results?: unknown };
  const sent =
    Array.isArray(answer.results) &&
    answer.results.some((result) => (result as { status?: unknown } | null)?.status === 'sent');
  if (!sent) context.logger.warn({ status: response.status }, 'notify.delivery_failed');
  if (!sent && response.status < 500 && response.status !== 409) key.value = newHexId();
  return response.status < 300 && sent;
}

type Attempt = 'sent' | 'no-services' | 'failed';

async function attempt(
  body: string,
  headers: Record<string, string>,
  key: CallKey,
  context: ToolContext,
  options: NotifyHandlerOptions,
): Promise<Attempt> {
  const gateways = await options.services.listHealthy('channel', GATEWAY_MAX_AGE_SECONDS);
  if (gateways.length === 0) return 'no-services';
  for (const gateway of gateways) {
    const base = gateway.url.replace(/\/+$/, '');
    // Only plain web URLs: a registry row must not make the agent read files or speak other protocols.
    if (!/^https?:\/\//i.test(base)) continue;
    try {
      if (await postOnce(`${base}/v1/api/notify`, body, headers, key, context, options)) return 'sent';
    } catch (error) {
      context.signal.throwIfAborted();
      context.logger.warn({ serviceId: gateway.serviceId, err: describeError(error) }, 'notify.delivery_failed');
    }
  }
  context.logger.warn({ gateways: gateways.length }, 'notify.all_gateways_failed');
  return 'failed';
}

async function deliver(args: NotifyArgs, context: ToolContext, options: NotifyHandlerOptions): Promise<Attempt> {
  const payload = {
    target: args.target,
    message: args.message,
    ...(args.title ? { title: args.title } : {}),
    ws_id: context.workstreamId,
  };
  const authorization = await options.authorization();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(authorization ? { authorization } : {}),
  };
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const key: CallKey = { value: newHexId() };
  let outcome: Attempt = 'failed';
  for (let index = 0; index <= delays.length; index++) {
    if (index > 0) await pause(delays[index - 1] ?? 0, context.signal);
    outcome = await attempt(JSON.stringify(payload), headers, key, context, options);
    if (outcome === 'sent') return outcome;
    if (outcome === 'no-services') context.logger.warn({ attempt: index + 1 }, 'notify.no_services');
  }
  return outcome;
}

function release(counters: Map<string, number>, key: string): void {
  const used = counters.get(key) ?? 0;
  if (used > 0) counters.set(key, used - 1);
}

export function createNotifyHandler(options: NotifyHandlerOptions): ToolHandler {
  // Successful notifications per (workstream, turn); failures do not count.
  const sentPerTurn = new Map<string, number>();
  return {
    name: 'notify',
    prepare: (args, context) => prepare(args, context, options),
    async execute(args, context): Promise<ToolResult> {
      const parsed = readArgs(args);
      if (typeof parsed === 'string') return { output: parsed, isError: true };
      const key = `${context.workstreamId}:${context.turnId ?? ''}`;
      // A slot is reserved while sending (calls of one step run in parallel) and given back on failure.
      const used = sentPerTurn.get(key) ?? 0;
      if (used >= MAX_NOTIFY_PER_TURN) {
        return {
          output: `Error: notification rate limit exceeded (max ${MAX_NOTIFY_PER_TURN} per turn)`,
          isError: true,
        };
      }
      sentPerTurn.delete(key);
      sentPerTurn.set(key, used + 1);
      if (sentPerTurn.size > COUNTER_TURNS) sentPerTurn.delete(sentPerTurn.keys().next().value as string);
      let outcome: Attempt = 'failed';
      try {
        outcome = await deliver(parsed, context, options);
      } catch (error) {
        context.signal.throwIfAborted();
        context.logger.warn({ err: describeError(error) }, 'notify.delivery_failed');
      } finally {
        if (outcome !== 'sent') release(sentPerTurn, key);
      }
      if (outcome === 'no-services') return { output: 'Error: no channel gateway services available', isError: true };
      if (outcome === 'failed') return { output: 'Error: notification delivery failed', isError: true };
      return { output: 'Notification sent successfully', isError: false };
    },
  };
}
