/** Maps errors thrown by @anthropic-ai/sdk (or the fetch under it) to ProviderError or an abort error. */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { isAbortError } from '../../../shared/abort.js';
import { GatewayError } from '../../../shared/errors.js';
import {
  abortErrorFor,
  connectionProviderError,
  httpProviderError,
  mentionsContextLength,
} from '../provider-errors.js';

/** The inner `{type, message}` of an Anthropic error body (`{type: "error", error: {...}}`). */
function innerError(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const inner = (body as Record<string, unknown>)['error'];
  if (typeof inner === 'object' && inner !== null) return inner as Record<string, unknown>;
  return body as Record<string, unknown>;
}

/**
 * Whether a 400 `invalid_request_error` says the prompt is too long ("prompt is too long: N tokens > M
 * maximum", "input length and max_tokens exceed context limit"). The message is read only for this flag.
 */
export function isAnthropicContextLengthError(error: APIError): boolean {
  if (error.status !== 400) return false;
  const inner = innerError(error.error);
  if (inner?.['type'] !== 'invalid_request_error') return false;
  return mentionsContextLength(inner['message']);
}

/** The error to throw for `error`, raised while calling or streaming with `signal`. */
export function toAnthropicError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted || error instanceof APIUserAbortError || isAbortError(error)) return abortErrorFor(signal);
  if (error instanceof GatewayError) return error;
  if (error instanceof APIConnectionTimeoutError) return connectionProviderError('anthropic', error, true);
  if (error instanceof APIConnectionError) return connectionProviderError('anthropic', error);
  if (error instanceof APIError) {
    return httpProviderError('anthropic', error.status, error.headers, innerError(error.error)?.['type'], {
      contextLength: isAnthropicContextLengthError(error),
    });
  }
  // Anything else while streaming is a cut or garbled stream (socket reset, bad SSE): retryable.
  return connectionProviderError('anthropic', error);
}
