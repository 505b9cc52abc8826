/** The crash fuzzer's tool calls `sleep <marker>`; this counts such processes still alive (a tool outliving its gateway). */
import { readdirSync, readFileSync } from 'node:fs';
import { isProcessAlive } from '../../src/agent/tools/run-process.js';

export function sleeps(marker: string): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.startsWith('sleep') && cmdline.includes(marker) && isProcessAlive(Number(entry))) count++;
    } catch {
      // Exited meanwhile.
    }
  }
  return count;
}
