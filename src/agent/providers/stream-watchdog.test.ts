import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAbortError } from '../../shared/abort.js';
import { isStreamTimeout, StreamWatchdog } from './stream-watchdog.js';

/** Yields `items`, then waits until `signal` aborts (a stalled stream). */
async function* stalling(items: readonly string[], signal: AbortSignal): AsyncGenerator<string> {
  for (const item of items) yield item;
  await new Promise((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }),
  );
}

async function drain(
  watchdog: StreamWatchdog,
  source: AsyncIterable<string>,
  holdMs = 0,
): Promise<{ seen: string[]; error: unknown }> {
  const seen: string[] = [];
  try {
    for await (const item of watchdog.track(source)) {
      seen.push(item);
      if (holdMs > 0) await new Promise((resolve) => setTimeout(resolve, holdMs));
    }
  } catch (error) {
    return { seen, error: watchdog.failure() ?? error };
  } finally {
    watchdog.stop();
  }
  return { seen, error: undefined };
}

describe('StreamWatchdog', () => {
  it('gives a stalled stream up as an idle timeout after the chunks it had', async () => {
    const watchdog = new StreamWatchdog('openai', new AbortController().signal, { firstTokenMs: 1_000, idleMs: 50 });
    const { seen, error } = await drain(watchdog, stalling(['a', 'b'], watchdog.signal));
    assert.deepEqual(seen, ['a', 'b']);
    assert.ok(isStreamTimeout(error));
    assert.equal(error.data?.['phase'], 'idle');
    assert.equal(error.retryable, true);
    assert.equal(error.message, 'openai: the stream stalled (nothing for 0.1 s)');
  });

  it('gives a silent call up as a first-token timeout', async () => {
    const watchdog = new StreamWatchdog('anthropic', new AbortController().signal, { firstTokenMs: 50, idleMs: 1_000 });
    const { seen, error } = await drain(watchdog, stalling([], watchdog.signal));
    assert.deepEqual(seen, []);
    assert.ok(isStreamTimeout(error));
    assert.equal(error.data?.['phase'], 'first-token');
  });

  it('does not count the time the consumer holds a chunk as silence', async () => {
    const watchdog = new StreamWatchdog('openai', new AbortController().signal, { firstTokenMs: 1_000, idleMs: 40 });
    async function* quick(): AsyncGenerator<string> {
      yield* ['a', 'b', 'c'];
    }
    const { seen, error } = await drain(watchdog, quick(), 120);
    assert.equal(error, undefined);
    assert.deepEqual(seen, ['a', 'b', 'c']);
  });

  it("reports the caller's cancel as an abort, never as a timeout", async () => {
    const caller = new AbortController();
    const watchdog = new StreamWatchdog('openai', caller.signal, { firstTokenMs: 1_000, idleMs: 1_000 });
    caller.abort();
    assert.equal(watchdog.signal.aborted, true);
    assert.equal(watchdog.failure(), undefined);
    assert.throws(
      () => watchdog.throwIfStopped(),
      (error: unknown) => isAbortError(error),
    );
    watchdog.stop();
  });
});
