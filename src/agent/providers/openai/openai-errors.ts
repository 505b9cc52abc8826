/** Maps errors thrown by the openai SDK (or the fetch under it) to ProviderError or an abort error. */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { isAbortError } from '../../../shared/abort.js';
import { GatewayError } from '../../../shared/errors.js';
import {
  abortErrorFor,
  connectionProviderError,
  httpProviderError,
  mentionsContextLength,
} from '../provider-errors.js';

const CONTEXT_IDENTIFIER = /context_length|context_window|exceed_context/i;

function fieldOf(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
}

/**
 * Whether a 400/413 says the prompt does not fit: OpenAI's `context_length_exceeded` code, a type such as
 * llama.cpp's `exceed_context_size_error`, or (vLLM, which sends no code) the wording of the message.
 */
export function isOpenAIContextLengthError(error: APIError): boolean {
  if (error.status !== 400 && error.status !== 413) return false;
  const body: unknown = error.error;
  const identifiers = [error.code, error.type, fieldOf(body, 'code'), fieldOf(body, 'type')];
  if (identifiers.some((value) => typeof value === 'string' && CONTEXT_IDENTIFIER.test(value))) return true;
  return mentionsContextLength(fieldOf(body, 'message') ?? error.message);
}

/** The error to throw for `error`, raised while calling or streaming with `signal`. */
export function toOpenAIError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted || error instanceof APIUserAbortError || isAbortError(error)) return abortErrorFor(signal);
  if (error instanceof GatewayError) return error;
  if (error instanceof APIConnectionTimeoutError) return connectionProviderError('openai', error, true);
  if (error instanceof APIConnectionError) return connectionProviderError('openai', error);
  if (error instanceof APIError) {
    const type = fieldOf(error.error, 'type');
    return httpProviderError('openai', error.status, error.headers, type ?? error.type, {
      contextLength: isOpenAIContextLengthError(error),
    });
  }
  // Anything else while streaming is a cut or garbled stream (socket reset, bad SSE): retryable.
  return connectionProviderError('openai', error);
}
