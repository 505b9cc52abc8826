#!/usr/bin/env node
// Compiles src/ and migrations/ (tests excluded) to dist/ with esbuild, file by file (ADR 0041: it only strips the
// types, in about a second; the types are checked by `npm run typecheck`, which CI runs). `prepare` runs it with
// --if-stale, so `npm ci`, `npm pack` and npx's link of the checkout skip a build that is already current. The output
// is written to dist.partial/ and renamed into place, so a running `sandpiper` never sees a half-written dist/.
import { readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuildCurrent } from '../bin/build-state.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv.includes('--if-stale') && isBuildCurrent(root)) {
  console.log('dist/ is up to date');
  process.exit(0);
}
let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.error(
    'sandpiper build: esbuild is not installed (a development dependency); bin/sandpiper.js runs the sources through tsx instead',
  );
  process.exit(0);
}
/** The non-test .ts files under `folder` (relative to the root). */
const sources = (folder) =>
  readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
const partial = path.join(root, 'dist.partial');
rmSync(partial, { recursive: true, force: true });
try {
  await build({
    entryPoints: [...sources('src'), ...sources('migrations')],
    outdir: partial,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
} catch {
  // esbuild has printed what it could not compile.
  rmSync(partial, { recursive: true, force: true });
  process.exit(1);
}
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
renameSync(partial, path.join(root, 'dist'));
