/**
 * Benchmark processes run compiled JavaScript, as a deployment does (`sandpiper start` runs dist/, built by tsc), not
 * TypeScript through tsx: tsx's esbuild keeps function names by wrapping every function and class it creates in a
 * helper call, about 0.4 ms of CPU per message for the gateway and next to nothing for a bare bot, a cost no user
 * pays. Both sides of a comparison are compiled the same way, and the way `scripts/build.js` builds dist/ (ADR 0054):
 * one esbuild bundle per process script, split where a module is imported at first use, packages external (resolved
 * from the repository's node_modules), built once per run. Without the splitting, the packages of every module loaded
 * at first use (the MCP SDK, the other model provider, pg) became static imports of the one file and loaded at start,
 * which a deployment does not do: the gateway's memory figures counted them.
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
  const name = basename(script, '.ts');
  const outdir = join(RUN_DIR, name);
  buildSync({
    entryPoints: [script],
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  const outfile = join(outdir, `${name}.mjs`);
  built.set(script, outfile);
  return outfile;
}
