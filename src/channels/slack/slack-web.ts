/** Slack Web API helpers: platform errors → ChannelError (no tokens, no user text), rate-limit delays, private answers. */
import { linkedSignal, type LinkedSignal } from '../../shared/abort.js';
import type { ErrorCode } from '../../shared/errors.js';
import { ChannelError, describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { truncate } from '../format/truncate.js';

const NOT_FOUND = new Set([
  'channel_not_found',
  'message_not_found',
  'thread_not_found',
  'user_not_found',
  'not_found',
]);
const UNAUTHORIZED = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);
const FORBIDDEN = new Set([
  'not_in_channel',
  'missing_scope',
  'restricted_action',
  'cant_update_message',
  'is_archived',
  'edit_window_closed',
]);
const RESPONSE_URL_TIMEOUT_MS = 10_000;

interface SlackErrorShape {
  code?: unknown;
  data?: { error?: unknown };
  retryAfter?: unknown;
  statusCode?: unknown;
}

/** Milliseconds to wait when `error` is Slack's rate-limit rejection (HTTP 429 `retry-after`); else undefined. */
export function rateLimitedMs(error: unknown): number | undefined {
  const shape = (error ?? {}) as SlackErrorShape;
  if (shape.code !== 'slack_webapi_rate_limited_error') return undefined;
  const seconds = typeof shape.retryAfter === 'number' && Number.isFinite(shape.retryAfter) ? shape.retryAfter : 1;
  return Math.max(0, seconds) * 1000;
}

/** Slack's error code (`msg_too_long`, `unknown_method`…) of a failed call, also through a ChannelError's cause. */
export function slackPlatformError(error: unknown): string | undefined {
  const shape = (error instanceof ChannelError ? error.cause : error) as SlackErrorShape | undefined;
  if (shape?.code !== 'slack_webapi_platform_error') return undefined;
  return typeof shape.data?.error === 'string' ? shape.data.error : undefined;
}

/** Wraps a Web API failure as a ChannelError naming the method and Slack's error code (never tokens or text). */
export function toSlackError(method: string, error: unknown): ChannelError {
  if (error instanceof ChannelError) return error;
  const shape = (error ?? {}) as SlackErrorShape;
  if (shape.code === 'slack_webapi_platform_error') {
    const slackError =
      typeof shape.data?.error === 'string' ? shape.data.error.replace(/[^a-z0-9_]/gi, '').slice(0, 60) : 'unknown';
    const code: ErrorCode = NOT_FOUND.has(slackError)
      ? 'NOT_FOUND'
      : UNAUTHORIZED.has(slackError)
        ? 'UNAUTHORIZED'
        : FORBIDDEN.has(slackError)
          ? 'FORBIDDEN'
          : 'CHANNEL_ERROR';
    return new ChannelError(`slack ${method} failed (${slackError})`, {
      cause: error,
      code,
      retryable: slackError === 'internal_error' || slackError === 'fatal_error',
    });
  }
  if (shape.code === 'slack_webapi_http_error') {
    const status = typeof shape.statusCode === 'number' ? shape.statusCode : 0;
    return new ChannelError(`slack ${method} failed (HTTP ${status})`, {
      cause: error,
      code: status === 404 ? 'NOT_FOUND' : 'CHANNEL_ERROR',
      retryable: status >= 500,
    });
  }
  return new ChannelError(`slack ${method} failed`, { cause: error, code: 'CHANNEL_ERROR', retryable: true });
}

/** The error a Slack call raced against an aborted signal rejects with (see `untilAborted` in shared/abort). */
export function slackCancelled(what: string): ChannelError {
  return new ChannelError(`slack ${what} cancelled`, { code: 'CANCELLED' });
}

/**
 * Posts a private (ephemeral) answer to an interaction's `response_url`; false when that failed. The URL comes
 * from Slack's own payload (over the authenticated socket), so it is trusted; it is never logged (it is a capability).
 */
export async function postToResponseUrl(
  url: string,
  text: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<boolean> {
  if (!/^https?:\/\//.test(url)) return false;
  const own = requestSignal(signal, RESPONSE_URL_TIMEOUT_MS);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
      signal: own.signal,
    });
    await response.body?.cancel();
    if (response.ok) return true;
    logger.warn({ status: response.status }, 'slack response_url answer refused');
  } catch (error) {
    logger.warn({ error: truncate(describeError(error), 200) }, 'slack response_url answer failed');
  } finally {
    own.release();
  }
  return false;
}

/**
 * A signal of one request's own, aborted by `signal` or after `timeoutMs`; `release` unlinks it. The adapter's signal
 * lives as long as the process: fetch (and `AbortSignal.any`, on Node 20) would keep something per call attached to it.
 */
function requestSignal(signal: AbortSignal, timeoutMs: number): LinkedSignal {
  return linkedSignal(signal, {
    timeoutMs,
    timeoutReason: () => new ChannelError('slack response_url timed out', { code: 'TIMEOUT' }),
  });
}

/** Runs a call whose failure only costs a nicety (a reaction, an ephemeral note); logs the failure at debug. */
export async function bestEffort(logger: Logger, what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    logger.debug({ what, error: describeError(error) }, 'slack best-effort call failed');
  }
}
