/** Errors raised by channel adapters, mapped from platform failures without user text or tokens. */
import { ChannelError } from '../shared/errors.js';

/** Wraps a platform failure as a ChannelError naming only the operation and the HTTP status. */
export function toChannelError(operation: string, error: unknown): ChannelError {
  if (error instanceof ChannelError) return error;
  const status =
    typeof (error as { status?: unknown })?.status === 'number' ? (error as { status: number }).status : undefined;
  const code =
    status === 429 ? 'RATE_LIMITED' : status === 404 ? 'NOT_FOUND' : status === 403 ? 'FORBIDDEN' : 'CHANNEL_ERROR';
  const suffix = status === undefined ? '' : ` (HTTP ${status})`;
  return new ChannelError(`${operation} failed${suffix}`, {
    cause: error,
    code,
    retryable: status === undefined || status === 429 || status >= 500,
  });
}

/** True when a ChannelError says the target is gone (deleted message, unknown channel). */
export function isGoneError(error: unknown): boolean {
  return error instanceof ChannelError && error.code === 'NOT_FOUND';
}
