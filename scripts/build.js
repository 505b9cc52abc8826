#!/usr/bin/env node
// Compiles src/ and migrations/ to dist/ with tsc (tsconfig.build.json). `prepare` runs it with --if-stale, so `npm ci`,
// `npm pack` and npx's link of the checkout skip a build that is already current. The output is written to dist.partial/
// and renamed into place, so a running `sandpiper` never sees a half-written dist/.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBuildCurrent } from '../bin/build-state.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv.includes('--if-stale') && isBuildCurrent(root)) {
  console.log('dist/ is up to date');
  process.exit(0);
}
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('sandpiper build: typescript is not installed (a development dependency); bin/sandpiper.js runs the sources through tsx instead');
  process.exit(0);
}
const partial = path.join(root, 'dist.partial');
rmSync(partial, { recursive: true, force: true });
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', partial], { stdio: 'inherit' });
if (result.status !== 0) {
  rmSync(partial, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
renameSync(partial, path.join(root, 'dist'));
