/** Maps errors thrown by @anthropic-ai/sdk (or the fetch under it) to ProviderError or an abort error. */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { isAbortError } from '../../../shared/abort.js';
import { GatewayError } from '../../../shared/errors.js';
import { abortErrorFor, connectionProviderError, httpProviderError } from '../provider-errors.js';

function errorTypeOf(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const inner = (body as Record<string, unknown>)['error'];
  if (typeof inner === 'object' && inner !== null) return (inner as Record<string, unknown>)['type'];
  return (body as Record<string, unknown>)['type'];
}

/** The error to throw for `error`, raised while calling or streaming with `signal`. */
export function toAnthropicError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted || error instanceof APIUserAbortError || isAbortError(error)) return abortErrorFor(signal);
  if (error instanceof GatewayError) return error;
  if (error instanceof APIConnectionTimeoutError) return connectionProviderError('anthropic', error, true);
  if (error instanceof APIConnectionError) return connectionProviderError('anthropic', error);
  if (error instanceof APIError) return httpProviderError('anthropic', error.status, error.headers, errorTypeOf(error.error));
  // Anything else while streaming is a cut or garbled stream (socket reset, bad SSE): retryable.
  return connectionProviderError('anthropic', error);
}
