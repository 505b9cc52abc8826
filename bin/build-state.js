// Whether dist/ (the compiled build) is current: it exists and no TypeScript source in src/ or migrations/ is newer.
// Shared by the bin (which falls back to the sources when it is not) and scripts/build.js (which skips a current build).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const SOURCE_FOLDERS = ['src', 'migrations'];

/** The compiled entry point under `root`. */
export function compiledEntry(root) {
  return path.join(root, 'dist', 'src', 'cli.js');
}

/** Newest modification time (ms) of the non-test .ts files under `folder`; 0 when there is none (an installed package). */
function newestSource(folder) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  let newest = 0;
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    newest = Math.max(newest, statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

export function isBuildCurrent(root) {
  const entry = compiledEntry(root);
  if (!existsSync(entry)) return false;
  const built = statSync(entry).mtimeMs;
  return SOURCE_FOLDERS.every((folder) => newestSource(path.join(root, folder)) <= built);
}
