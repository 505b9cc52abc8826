/** Provider-neutral retries: exponential backoff with full jitter, only before the first streamed part. */
import { isAbortError } from '../../shared/abort.js';
import { ProviderError } from '../../shared/errors.js';
import { sleep } from '../../shared/time.js';
import type { ModelProvider, ModelRequest, ModelStreamPart } from './model-provider.js';
import { abortErrorFor } from './provider-errors.js';

export interface RetryInfo {
  /** The attempt that failed (1-based). */
  attempt: number;
  /** Wait before the next attempt. */
  delayMs: number;
  error: ProviderError;
}

export interface RetryOptions {
  signal: AbortSignal;
  /** Total attempts including the first (default 4). */
  maxAttempts?: number;
  /** Backoff base: attempt n waits up to `baseDelayMs * 2^(n-1)` (default 1000). */
  baseDelayMs?: number;
  /** Cap for both the backoff and a server's retry-after (default 30000). */
  maxDelayMs?: number;
  /** Called before each wait (e.g. to tell the user "retrying in 2 s"). */
  onRetry?: (info: RetryInfo) => void;
  /** Random source in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
}

/** Delay before the next attempt: the server's retry-after when given (capped), else full-jitter backoff. */
export function retryDelayMs(error: ProviderError, attempt: number, options: RetryOptions): number {
  const maxDelay = options.maxDelayMs ?? 30_000;
  if (error.retryAfterMs !== undefined) return Math.min(Math.max(0, error.retryAfterMs), maxDelay);
  const ceiling = Math.min(maxDelay, (options.baseDelayMs ?? 1000) * 2 ** (attempt - 1));
  return Math.floor((options.random ?? Math.random)() * ceiling);
}

/**
 * Streams `request`, retrying a retryable `ProviderError` only when the failed attempt had not yielded any
 * part yet (streamed text is never duplicated). Gives up with the last ProviderError; throws an abort
 * error when `signal` aborts, including during a backoff sleep.
 */
export async function* streamWithRetries(
  provider: ModelProvider,
  request: ModelRequest,
  options: RetryOptions,
): AsyncGenerator<ModelStreamPart, void, undefined> {
  const { signal } = options;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  for (let attempt = 1; ; attempt += 1) {
    let hasYielded = false;
    try {
      for await (const part of provider.stream(request, { signal })) {
        hasYielded = true;
        yield part;
      }
      return;
    } catch (error) {
      if (signal.aborted || isAbortError(error)) throw signal.aborted ? abortErrorFor(signal) : error;
      if (!(error instanceof ProviderError) || !error.retryable || hasYielded || attempt >= maxAttempts) throw error;
      const delayMs = retryDelayMs(error, attempt, options);
      options.onRetry?.({ attempt, delayMs, error });
      try {
        await sleep(delayMs, signal);
      } catch (sleepError) {
        throw signal.aborted ? abortErrorFor(signal) : sleepError;
      }
    }
  }
}
