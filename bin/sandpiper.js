#!/usr/bin/env node
// Entry point of the `sandpiper` bin (docs/decisions/0005-compiled-dist-with-source-fallback.md).
// Runs the compiled CLI from dist/ (built by `npm run build`, which `prepare` runs on `npm ci` and `npm pack`).
// In a checkout whose sources are newer than that build, or that has no build, it runs the TypeScript sources
// through tsx instead, so an edit never runs stale code. Either way the CLI runs in this process: a supervisor's
// signal reaches the gateway itself.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiled = path.join(root, 'dist', 'src', 'cli.js');
const SOURCE_FOLDERS = ['src', 'migrations'];

/** Newest modification time (ms) of the .ts files under `folder`; 0 when there is none. */
function newestSource(folder) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    newest = Math.max(newest, statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

/** The compiled build is used when it exists and no source file is newer (an installed package ships no sources). */
function useCompiled() {
  if (process.env.SANDPIPER_FROM_SOURCE === '1' || !existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  return SOURCE_FOLDERS.every((folder) => newestSource(path.join(root, folder)) <= built);
}

if (useCompiled()) {
  await import(pathToFileURL(compiled).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src', 'cli.ts')).href);
}
