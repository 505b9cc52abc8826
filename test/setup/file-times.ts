/**
 * Loaded into every test process (`--import`, by scripts/run-tests.mjs): when the process exits, appends the file's
 * wall time since the process started (start-up and imports included) and its CPU time to `SANDPIPER_TEST_TIMES`,
 * one JSON line per file, from which the runner prints the slowest test files.
 */
import { appendFileSync } from 'node:fs';

const target = process.env.SANDPIPER_TEST_TIMES;
if (target) {
  process.on('exit', (code) => {
    const { user, system } = process.cpuUsage();
    const line = { file: process.argv[1] ?? '?', wallMs: Math.round(performance.now()), cpuMs: Math.round((user + system) / 1000), code };
    appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}
