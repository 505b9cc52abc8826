/** Cost of the tool sandbox per bash call: the same `bash` tool call sandboxed (bubblewrap) and unsandboxed, interleaved. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectSandbox } from '../src/agent/sandbox/detect-sandbox.js';
import { createSandbox, type Sandbox } from '../src/agent/sandbox/sandbox.js';
import { bashHandler } from '../src/agent/tools/builtin/bash.js';
import { runProcess } from '../src/agent/tools/run-process.js';
import { createToolContext } from '../test/helpers/tool-context.js';

const ROUNDS = 40;
const WARMUP = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timeBash(directory: string, sandbox: Sandbox): Promise<number> {
  const start = performance.now();
  const result = await bashHandler.execute({ command: 'echo hi' }, createToolContext(directory, { sandbox }));
  if (result.output !== 'hi') throw new Error(`unexpected bash output: ${String(result.output)}`);
  return performance.now() - start;
}

async function timePlainSpawn(directory: string): Promise<number> {
  const start = performance.now();
  await runProcess('bash', ['-c', 'echo hi'], { cwd: directory, signal: new AbortController().signal });
  return performance.now() - start;
}

/** Prints p50 of a bash call in bubblewrap, without it (tools.sandbox = "off"), and a bare spawn as the baseline. */
export async function benchSandboxCost(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'sandpiper-bench-sandbox-'));
  try {
    const status = await detectSandbox({ mode: 'auto' });
    const off = createSandbox(await detectSandbox({ mode: 'off' }));
    const contained = status.kind === 'bwrap' ? createSandbox(status) : undefined;
    const samples = { bwrap: [] as number[], off: [] as number[], spawn: [] as number[] };
    for (let round = 0; round < ROUNDS + WARMUP; round++) {
      // Interleaved, so load changes on the machine hit all three alike.
      const bwrap = contained === undefined ? 0 : await timeBash(directory, contained);
      const unsandboxed = await timeBash(directory, off);
      const spawn = await timePlainSpawn(directory);
      if (round < WARMUP) continue;
      samples.bwrap.push(bwrap);
      samples.off.push(unsandboxed);
      samples.spawn.push(spawn);
    }
    console.log(`bash tool call "echo hi", ${ROUNDS} interleaved rounds (p50):`);
    console.log(`  baseline: bare spawn of bash      ${median(samples.spawn).toFixed(2)} ms`);
    console.log(`  tools.sandbox = "off"             ${median(samples.off).toFixed(2)} ms`);
    if (contained === undefined) {
      console.log(`  tools.sandbox = "bwrap"           unavailable here (${status.reason})`);
      return;
    }
    const added = median(samples.bwrap) - median(samples.off);
    console.log(
      `  tools.sandbox = "bwrap"           ${median(samples.bwrap).toFixed(2)} ms  (sandbox adds ${added.toFixed(2)} ms per call)`,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
