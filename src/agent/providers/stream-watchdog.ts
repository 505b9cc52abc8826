/**
 * Per-call model timeouts. A call that sends nothing for too long is aborted: before its first stream chunk
 * (`firstTokenMs`, which also covers a request hanging before the response headers) or between two chunks
 * (`idleMs`). Wire chunks count, not parts: a long tool call streams many chunks before it becomes one part.
 */
import { ProviderError } from '../../shared/errors.js';
import { untilAborted } from '../../shared/abort.js';
import { abortErrorFor } from './provider-errors.js';

export interface StreamTimeouts {
  /** Longest wait from sending the request to the first stream chunk. */
  firstTokenMs: number;
  /** Longest silence between two stream chunks. */
  idleMs: number;
}

/** `models.<alias>.first_token_timeout_s` and `stream_idle_timeout_s` defaults (60 s each). */
export const DEFAULT_STREAM_TIMEOUTS: StreamTimeouts = { firstTokenMs: 60_000, idleMs: 60_000 };

/** Margin over `firstTokenMs` for the SDK's own request timeout, a backstop that never fires first. */
const SDK_TIMEOUT_MARGIN_MS = 5_000;

/** The vendor SDK's request timeout (time to headers) for these timeouts, instead of its 10-minute default. */
export function sdkTimeoutMs(timeouts: StreamTimeouts): number {
  return timeouts.firstTokenMs + SDK_TIMEOUT_MARGIN_MS;
}

type Phase = 'first-token' | 'idle';

/** How late a timer may fire before it counts as a pause of this process (healthy timers are a few ms late). */
function pauseToleranceMs(limitMs: number): number {
  return Math.max(20, limitMs / 20);
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The retryable ProviderError of an expired call (`code: 'TIMEOUT'`, `data.phase`, `data.limitMs`). */
export function streamTimeoutError(vendor: string, phase: Phase, limitMs: number): ProviderError {
  const what =
    phase === 'first-token'
      ? `no response within ${seconds(limitMs)}`
      : `the stream stalled (nothing for ${seconds(limitMs)})`;
  return new ProviderError(`${vendor}: ${what}`, {
    retryable: true,
    code: 'TIMEOUT',
    data: { vendor, phase, limitMs },
  });
}

/** Whether `error` is a model call given up by its watchdog. */
export function isStreamTimeout(error: unknown): error is ProviderError {
  return error instanceof ProviderError && error.code === 'TIMEOUT' && typeof error.data?.['phase'] === 'string';
}

/** One call's timers. Hand `signal` to the SDK, pass its stream through `track`, and `stop()` in a finally. */
export class StreamWatchdog {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #outer: AbortSignal;
  readonly #forward: () => void;
  #timer: NodeJS.Timeout | undefined;
  #expired: { phase: Phase; limitMs: number } | undefined;

  constructor(
    private readonly vendor: string,
    outer: AbortSignal,
    private readonly timeouts: StreamTimeouts,
  ) {
    this.#outer = outer;
    this.signal = this.#controller.signal;
    this.#forward = () => this.#controller.abort(outer.reason);
    if (outer.aborted) this.#forward();
    else outer.addEventListener('abort', this.#forward, { once: true });
    this.#arm('first-token', timeouts.firstTokenMs);
  }

  /**
   * Yields the chunks of `stream`; the idle timer runs only while the next chunk is awaited. Once the call is given
   * up (the caller cancelled, or a timer expired) the wait for the next chunk rejects with that reason at once: a
   * vendor stream that does not end when its signal aborts (seen with openai's under load: a chunk read pending
   * forever after the abort) cannot hold the turn, or a shutdown waiting for it. A later rejection of that read stays
   * handled (`untilAborted`).
   */
  async *track<T>(stream: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
    const chunks = stream[Symbol.asyncIterator]();
    let done = false;
    try {
      for (;;) {
        const next = await untilAborted(chunks.next(), this.signal);
        if (next.done === true) break;
        this.#clear();
        yield next.value;
        this.#arm('idle', this.timeouts.idleMs);
      }
      done = true;
    } finally {
      this.#clear();
      // A consumer that stopped early closes the stream, as `for await` would. A call given up is not: its signal
      // already aborted the stream, and closing it would wait behind the read that never ends.
      if (!done && !this.signal.aborted) await chunks.return?.();
    }
  }

  /** Throws the abort error (caller cancelled) or the timeout error once the call was given up. */
  throwIfStopped(): void {
    if (this.#outer.aborted) throw abortErrorFor(this.#outer);
    const failure = this.failure();
    if (failure !== undefined) throw failure;
  }

  /** The timeout error when this watchdog gave the call up (and the caller did not cancel it). */
  failure(): ProviderError | undefined {
    if (this.#expired === undefined || this.#outer.aborted) return undefined;
    return streamTimeoutError(this.vendor, this.#expired.phase, this.#expired.limitMs);
  }

  /** Clears the timer and unlinks from the caller's signal. */
  stop(): void {
    this.#clear();
    this.#outer.removeEventListener('abort', this.#forward);
  }

  #arm(phase: Phase, limitMs: number, rearmed = false): void {
    this.#clear();
    const due = performance.now() + limitMs;
    // Purpose: timeout (a model stream silent for too long in this phase is aborted).
    this.#timer = setTimeout(() => {
      // A timer that fires well after it was due means this process was not running: a chunk may be waiting unread
      // in the socket. Such a pause is not the model's silence, so the wait starts over, once.
      if (!rearmed && performance.now() - due > pauseToleranceMs(limitMs)) {
        this.#arm(phase, limitMs, true);
        return;
      }
      this.#expired = { phase, limitMs };
      this.#controller.abort(streamTimeoutError(this.vendor, phase, limitMs));
    }, limitMs);
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
