/** Maps errors thrown by the openai SDK (or the fetch under it) to ProviderError or an abort error. */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { isAbortError } from '../../../shared/abort.js';
import { GatewayError } from '../../../shared/errors.js';
import { abortErrorFor, connectionProviderError, httpProviderError } from '../provider-errors.js';

/** The error to throw for `error`, raised while calling or streaming with `signal`. */
export function toOpenAIError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted || error instanceof APIUserAbortError || isAbortError(error)) return abortErrorFor(signal);
  if (error instanceof GatewayError) return error;
  if (error instanceof APIConnectionTimeoutError) return connectionProviderError('openai', error, true);
  if (error instanceof APIConnectionError) return connectionProviderError('openai', error);
  if (error instanceof APIError) {
    const body: unknown = error.error;
    const type = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['type'] : undefined;
    return httpProviderError('openai', error.status, error.headers, type ?? error.type);
  }
  // Anything else while streaming is a cut or garbled stream (socket reset, bad SSE): retryable.
  return connectionProviderError('openai', error);
}
