/**
 * Runs several test files in one process, each as a suite of its own named after its source, so the modules they
 * share (discord.js, bolt, the SDKs, the fakes) load once per group instead of once per file (scripts/test-groups.mjs
 * writes the group files). A file's top-level hooks stay its own: node:test scopes hooks registered while the suite's
 * function runs (the file's import) to that suite, so file A's `after` runs before file B's `before`.
 *
 * Each file is checked as if it ran alone: after its own `after` hooks, every handle it opened must be gone within the
 * open-handles grace (test/setup/open-handles.ts), else the file fails, naming the handle types; its wall and CPU time
 * and outcome are recorded per file (test/setup/file-times.ts).
 */
import { after, afterEach, before, describe } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordFile, timeMark, type TimeMark } from './file-times.js';
import { GRACE_MS, TRACE_HINT, leakedSince, liveHandleOrigins, liveHandles } from './open-handles.js';

const POLL_MS = 10;

/** Waits until the handles alive at the file's start are all that is left; throws naming the rest after the grace. */
async function settled(source: string, before: Map<string, number>): Promise<void> {
  const deadline = performance.now() + GRACE_MS;
  for (;;) {
    const leaked = leakedSince(before);
    if (leaked.length === 0) return;
    if (performance.now() > deadline) {
      const origins = liveHandleOrigins();
      const where = origins ? origins.join('\n') : TRACE_HINT;
      throw new Error(
        `open handles ${GRACE_MS} ms after the tests of ${source} finished: ${leaked.join(', ')}\n${where}`,
      );
    }
    await sleep(POLL_MS);
  }
}

/** Registers one test file of the group: `load` imports it while its suite is being built. */
export function groupFile(source: string, load: () => Promise<unknown>): void {
  void describe(source, async () => {
    let mark: TimeMark | undefined;
    let handles = new Map<string, number>();
    let failed = false;
    before(() => {
      mark = timeMark();
      handles = liveHandles();
    });
    afterEach((t) => {
      // `passed` is there at run time on Node 20.12+; the bundled @types/node does not declare it yet.
      if ((t as { passed?: boolean }).passed === false) failed = true;
    });
    await load();
    // Registered after the file's own hooks: it runs once they have closed what the file opened.
    after(async () => {
      try {
        await settled(source, handles);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        if (mark) recordFile(source, mark, failed ? 1 : 0);
      }
    });
  });
}
