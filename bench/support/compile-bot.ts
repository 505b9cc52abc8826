/**
 * Benchmark processes run compiled JavaScript, as a deployment does (`sandpiper start` runs dist/, built by tsc), not
 * TypeScript through tsx: tsx's esbuild keeps function names by wrapping every function and class it creates in a
 * helper call, about 0.4 ms of CPU per message for the gateway and next to nothing for a bare bot, a cost no user
 * pays. Both sides of a comparison are compiled the same way: one esbuild bundle per process script, packages
 * external (resolved from the repository's node_modules), built once per run.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Under the repository's node_modules (so the bundles resolve its packages), one folder per run, removed at exit. */
const RUN_DIR = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'sandpiper-bench', String(process.pid));
const built = new Map<string, string>();
let cleanup = false;

/** The compiled form of `script` (a path to a .ts file), built once per benchmark run. */
export function compiledScript(script: string): string {
  const cached = built.get(script);
  if (cached !== undefined) return cached;
  mkdirSync(RUN_DIR, { recursive: true });
  if (!cleanup) {
    cleanup = true;
    process.once('exit', () => rmSync(RUN_DIR, { recursive: true, force: true }));
  }
  const outfile = join(RUN_DIR, `${basename(script, '.ts')}.mjs`);
  buildSync({
    entryPoints: [script],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  built.set(script, outfile);
  return outfile;
}
