/** Classified MCP failures: what the breaker counts and whether the session is dead. */
import { McpError } from '../../shared/errors.js';

/**
 * - `transport`: the connection is gone (closed stream, reset, refused); counts and evicts the session.
 * - `timeout`: our deadline passed (the request was cancelled on the server); counts, session kept.
 * - `protocol`: the server answered with a JSON-RPC error; not counted.
 * - `circuit-open`: refused locally by the breaker.
 * - `not-connected`: no session and reconnecting failed.
 * - `unknown-target`: no such tool, resource or prompt.
 * - `unauthorized`: an OAuth server wants (fresh) credentials from the caller; not counted.
 * - `other`: anything else; counts, session kept.
 */
export type McpFailureKind =
  'transport' | 'timeout' | 'protocol' | 'circuit-open' | 'not-connected' | 'unknown-target' | 'unauthorized' | 'other';

export class McpCallError extends McpError {
  readonly kind: McpFailureKind;
  constructor(kind: McpFailureKind, message: string, cause?: unknown) {
    super(kind === 'timeout' ? 'TIMEOUT' : 'MCP_ERROR', message, cause === undefined ? {} : { cause });
    this.kind = kind;
  }
}

/** Whether this failure should count against the server's circuit breaker. */
export function countsAsBreakerFailure(kind: McpFailureKind): boolean {
  return kind === 'transport' || kind === 'timeout' || kind === 'other' || kind === 'not-connected';
}

const TRANSPORT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ENOTCONN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_STREAM_DESTROYED',
]);

/** Network-level failure detection shared by the connection layer. */
export function isTransportLevelError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSPORT_CODES.has(code)) return true;
  if (error.message === 'transport is closed' || error.message === 'Not connected') return true;
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return true;
  return error.cause !== undefined && error.cause !== error && isTransportLevelError(error.cause);
}
