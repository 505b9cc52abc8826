#!/usr/bin/env node
// Packs the SQLite driver this checkout already compiled (node_modules/sqlite3/build/Release/node_sqlite3.node) as the
// prebuilt archive that sqlite3's install script (`prebuild-install -r napi || node-gyp rebuild`) looks for in the
// folder named by npm_config_sqlite3_local_prebuilds. With no network to GitHub, every install of sqlite3 otherwise
// compiles its C sources again (about 45 s of one core): CI keeps the archive in a cache folder outside the clone so
// the next `npm ci` unpacks it, and the package test hands it to its `npm install -g`. prebuild-install loads the
// unpacked binary before it keeps it, and falls back to compiling when that fails, so a stale archive costs a compile.
//
//   node scripts/sqlite-prebuild.mjs <folder>            write the archives into <folder> (created)
//   node scripts/sqlite-prebuild.mjs <folder> --if-missing   only when <folder> has none for this sqlite3 version
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [folderArgument, ...flags] = process.argv.slice(2);
if (!folderArgument) {
  console.error('usage: node scripts/sqlite-prebuild.mjs <folder> [--if-missing]');
  process.exit(2);
}
const folder = path.resolve(folderArgument);
const driver = path.join(root, 'node_modules', 'sqlite3');
const binary = path.join(driver, 'build', 'Release', 'node_sqlite3.node');
if (!existsSync(binary)) {
  console.error(`sqlite-prebuild: ${path.relative(root, binary)} is missing (run npm ci first)`);
  process.exit(1);
}
const pkg = JSON.parse(readFileSync(path.join(driver, 'package.json'), 'utf8'));
// prebuild-install names the archive {name}-v{version}-napi-v{napi version}-{platform}{libc}-{arch}.tar.gz and picks
// the highest N-API version both sqlite3 and this node support: write one per listed version (the same binary).
const libc = process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime ? 'musl' : '';
const names = (pkg.binary?.napi_versions ?? [])
  .filter((version) => version <= Number(process.versions.napi))
  .map((version) => `sqlite3-v${pkg.version}-napi-v${version}-${process.platform}${libc}-${process.arch}.tar.gz`);
if (names.length === 0) {
  console.error('sqlite-prebuild: sqlite3 lists no N-API version this node supports');
  process.exit(1);
}
if (flags.includes('--if-missing') && names.every((name) => existsSync(path.join(folder, name)))) process.exit(0);
mkdirSync(folder, { recursive: true });
for (const name of names) {
  const packed = spawnSync('tar', ['-czf', path.join(folder, name), '-C', driver, 'build/Release/node_sqlite3.node'], {
    stdio: 'inherit',
  });
  if (packed.status !== 0) process.exit(packed.status ?? 1);
}
console.log(`sqlite-prebuild: ${names.join(', ')} in ${folder}`);
