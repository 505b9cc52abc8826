/** Provider-neutral error helpers: HTTP/connection failures as ProviderError, aborts as abort errors, retry-after parsing. */
import { isAbortError } from '../../shared/abort.js';
import { ProviderError } from '../../shared/errors.js';
import { maskSecrets } from '../../shared/secret-masking.js';

/** Minimal header reader (the Fetch `Headers` shape) so this file needs no vendor SDK. */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * Milliseconds the server asked us to wait: `retry-after-ms` (milliseconds), else `retry-after`
 * (seconds or an HTTP date). Undefined when absent or unparsable.
 */
export function parseRetryAfterMs(headers: HeaderReader | undefined, now: number = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const millis = headers.get('retry-after-ms');
  if (millis !== null && millis.trim() !== '') {
    const value = Number(millis);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'bad request',
  401: 'authentication failed',
  403: 'permission denied',
  404: 'not found (check base_url and model)',
  408: 'request timeout',
  409: 'conflict',
  413: 'request too large',
  422: 'unprocessable request',
  429: 'rate limited',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
  529: 'overloaded',
};

/** Vendor error `type` values are short machine identifiers; anything else is dropped. */
function safeErrorType(type: unknown): string | undefined {
  return typeof type === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(type) ? type : undefined;
}

/** Phrases vendors and local servers use when the prompt does not fit the model's context window. */
const CONTEXT_LENGTH_TEXT =
  /context[ _-]?(length|window|size|limit)|maximum context|prompt is too long|too many tokens|input is too long|exceeds? the (available )?context/i;

/**
 * Whether a vendor's error text says the prompt is too long for the context window. Used only to set
 * `data.contextLength`; the text itself is never copied into our errors.
 */
export function mentionsContextLength(text: unknown): boolean {
  return typeof text === 'string' && CONTEXT_LENGTH_TEXT.test(text);
}

/** Facts a vendor mapper read from the error body (the body itself is never kept). */
export interface ProviderErrorHints {
  /** The request was rejected because the prompt does not fit the context window (compaction may help). */
  contextLength?: boolean;
}

/**
 * A ProviderError for an HTTP error answer. The message names the vendor, status and error type only:
 * vendor messages can echo keys or request content, so they are never copied.
 */
export function httpProviderError(
  vendor: string,
  status: number | undefined,
  headers: HeaderReader | undefined,
  errorType?: unknown,
  hints: ProviderErrorHints = {},
): ProviderError {
  const type = safeErrorType(errorType);
  const what = status === undefined ? 'stream error' : `HTTP ${status} ${STATUS_TEXT[status] ?? 'error'}`;
  const message = `${vendor}: ${what}${type === undefined ? '' : ` (${type})`}${hints.contextLength === true ? ': the prompt exceeds the context window' : ''}`;
  const retryAfterMs = parseRetryAfterMs(headers);
  const data: Record<string, unknown> = { vendor };
  if (type !== undefined) data['type'] = type;
  if (hints.contextLength === true) data['contextLength'] = true;
  return new ProviderError(message, {
    ...(status === undefined ? {} : { status }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(status === undefined && type !== undefined ? { retryable: type === 'overloaded_error' || type === 'api_error' } : {}),
    data,
  });
}

/** A retryable ProviderError for a connection failure (refused, reset, timed out, stream cut). */
export function connectionProviderError(vendor: string, cause: unknown, timedOut = false): ProviderError {
  const message = `${vendor}: ${timedOut ? 'request timed out' : 'connection failed'}`;
  const reason = timedOut ? undefined : socketReason(cause);
  const data = { vendor, ...(reason === undefined ? {} : { reason }) };
  return new ProviderError(message, { retryable: true, cause, data, ...(timedOut ? { code: 'TIMEOUT' as const } : {}) });
}

/**
 * Why a connection failed, in the system's words (`connect ECONNREFUSED 127.0.0.1:8080`, `getaddrinfo ENOTFOUND
 * host`): the innermost cause that carries an error code. Secrets never appear in these (no URL, no header); masked anyway.
 */
function socketReason(error: unknown): string | undefined {
  let found: string | undefined;
  for (let current = error, depth = 0; current instanceof Error && depth < 6; current = current.cause, depth += 1) {
    if (typeof (current as { code?: unknown }).code === 'string' && current.message) found = current.message;
  }
  return found === undefined ? undefined : maskSecrets(found.slice(0, 200));
}

/** The abort error to throw after `signal` aborted: its reason when it already is one, else a DOMException. */
export function abortErrorFor(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (isAbortError(reason)) return reason as Error;
  return new DOMException('The operation was aborted', 'AbortError');
}
