#!/usr/bin/env node
// Entry point of the `sandpiper` bin (docs/decisions/0010-compiled-build-with-source-fallback.md).
// Runs the compiled CLI from dist/ (built by scripts/build.js, which `prepare` runs on `npm ci` and `npm pack`).
// In a checkout whose sources are newer than that build, or that has no build, it runs the TypeScript sources
// through tsx instead, so an edit never runs stale code. Either way the CLI runs in this process: a supervisor's
// signal reaches the gateway itself.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiledEntry, isBuildCurrent } from './build-state.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

if (process.env.SANDPIPER_FROM_SOURCE !== '1' && isBuildCurrent(root)) {
  await import(pathToFileURL(compiledEntry(root)).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src', 'cli.ts')).href);
}
