/** Processes found by their command line in /proc (Linux), for tests that check what outlives what. */
import { readdirSync, readFileSync } from 'node:fs';
import { isProcessAlive } from '../../src/agent/tools/run-process.js';

/** Pids whose command line (arguments joined by spaces) `matches`. */
export function pidsWhere(matches: (cmdline: string) => boolean): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (matches(cmdline)) found.push(Number(entry));
    } catch {
      // Exited meanwhile.
    }
  }
  return found;
}

/** Live `sleep` processes whose command line carries `marker` (a unique sleep duration). */
export function sleepsWith(marker: string): number[] {
  return pidsWhere((cmdline) => cmdline.startsWith('sleep') && cmdline.includes(marker)).filter((pid) =>
    isProcessAlive(pid),
  );
}
