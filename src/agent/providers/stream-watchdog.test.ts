import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
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

/** A connected local TCP pair: `send` writes from the peer, `lines` reads on our side (through the poll phase). */
async function socketPair(): Promise<{
  lines: AsyncIterable<string>;
  send: (text: string) => void;
  close: () => void;
}> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.setEncoding('utf8');
  const [[peer]] = (await Promise.all([once(server, 'connection'), once(socket, 'connect')])) as [[Socket], unknown];
  return { lines: socket, send: (text) => peer.end(text), close: () => server.close() };
}

/** Keeps this process from running anything else for `ms` (a machine too loaded to schedule it). */
function pause(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('StreamWatchdog', () => {
  it('does not give a call up when its timer was late because the process itself was paused', async () => {
    const { lines, send, close } = await socketPair();
    const watchdog = new StreamWatchdog('openai', new AbortController().signal, { firstTokenMs: 50, idleMs: 50 });
    send('hello'); // the chunk reaches our socket at once, but this process cannot read it before the timer is due
    pause(200);
    const { seen, error } = await drain(watchdog, lines);
    close();
    assert.equal(error, undefined);
    assert.deepEqual(seen, ['hello']);
    assert.equal(watchdog.signal.aborted, false, 'the call was not given up');
  });

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

  /** Yields `items`, then never yields again, whatever the signal does (a vendor stream that ignores its abort). */
  async function* deaf(items: readonly string[]): AsyncGenerator<string> {
    for (const item of items) yield item;
    await new Promise(() => undefined);
  }

  it("ends the wait for a stream that ignores its abort: the caller's cancel and a timeout both end it at once", async () => {
    const caller = new AbortController();
    const cancelled = new StreamWatchdog('openai', caller.signal, { firstTokenMs: 60_000, idleMs: 60_000 });
    const seen: string[] = [];
    const run = (async () => {
      for await (const item of cancelled.track(deaf(['a']))) {
        seen.push(item);
        caller.abort(new DOMException('stopped', 'AbortError'));
      }
    })();
    await assert.rejects(run, (error: unknown) => isAbortError(error));
    assert.deepEqual(seen, ['a']);
    assert.equal(cancelled.failure(), undefined, 'a cancel, not a timeout');
    cancelled.stop();

    const timed = new StreamWatchdog('openai', new AbortController().signal, { firstTokenMs: 1_000, idleMs: 30 });
    const result = await drain(timed, deaf(['b']));
    assert.deepEqual(result.seen, ['b']);
    assert.ok(isStreamTimeout(result.error), `an idle timeout, not ${String(result.error)}`);
  });
});
