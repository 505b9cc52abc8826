/**
 * `bench:discord --apart`: the streaming fake LLM in its own process. It answers `times` with when each request
 * arrived and its last token was written (CLOCK_MONOTONIC ms, mono-clock.ts) and the first request body.
 */
import { startBenchLlm } from './bench-llm.js';
import { monoEntries } from './mono-clock.js';

const llm = await startBenchLlm();
process.on('disconnect', () => process.exit(0));
process.on('message', (message: { type: string }) => {
  if (message.type === 'times') {
    process.send?.({
      type: 'times',
      requestAt: monoEntries(llm.requestAt),
      lastTokenAt: monoEntries(llm.lastTokenAt),
      firstBody: llm.firstBody,
    });
  } else if (message.type === 'stop') void llm.close().finally(() => process.exit(0));
});
process.send?.({ type: 'ready', url: llm.url });
