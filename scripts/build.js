#!/usr/bin/env node
// Builds dist/ with esbuild: src/cli.ts and everything it imports from src/ and migrations/ as one bundle, split into
// chunks where the code loads a module at first use (ADR 0054). The packages a start loads and that bundle safely are
// bundled too (ADR 0055: INLINED below); the others stay imports from node_modules. It only strips
// the types (ADR 0041); they are checked by `npm run typecheck`, which CI runs. `prepare` runs it with --if-stale, so
// `npm ci`, `npm pack` and npx's link of the checkout skip a build that is already current. The output is written to
// dist.partial-*/ (one per build) and renamed into place, so a running `sandpiper` never sees a half-written dist/, and
// two builds at once (two test runs after an edit) do not write into each other's folder.
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledEntry, isBuildCurrent } from '../bin/build-state.js';
import { writeThirdPartyNotices } from './third-party-notices.js';

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
/**
 * Packages bundled into dist/ with every package they import (ADR 0055): discord.js alone is about 400 CommonJS
 * files, each resolved, read and compiled on every start. Not here, and why: zod (the MCP SDK shares its schemas),
 * pino (its transports run files from its own folder in a worker), @opentelemetry/* (one API shared with the SDK),
 * knex and the database drivers (native code, dialects required by name), sharp (native), bolt and the MCP SDK
 * (loaded at first use only).
 */
const INLINED = new Set([
  'discord.js',
  'openai',
  '@anthropic-ai/sdk',
  'hono',
  '@hono/node-server',
  'prom-client',
  'smol-toml',
  'jose',
  'lru-cache',
]);
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** esbuild plugin: an npm import stays external unless it is an INLINED package or is imported by bundled package code. */
const inlinePackages = {
  name: 'inline-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { external: true };
      const fromPackage = args.importer.split(path.sep).includes('node_modules');
      return fromPackage || INLINED.has(packageName(args.path)) ? undefined : { external: true };
    });
  },
};

const partial = mkdtempSync(path.join(root, 'dist.partial-'));
try {
  const { metafile } = await build({
    absWorkingDir: root,
    metafile: true,
    entryPoints: { 'src/cli': path.join(root, 'src', 'cli.ts') },
    outdir: partial,
    bundle: true,
    // One file per module loaded at first use (the runtime, the MCP connection, the adapters, the model providers...), so a start
    // loads only what it runs; code two of them share goes into a chunk of its own.
    splitting: true,
    chunkNames: 'src/chunks/[name]-[hash]',
    // The other npm packages stay imports, resolved from node_modules (native drivers, optional packages).
    plugins: [inlinePackages],
    // Bundled CommonJS code calls require(): ESM output has none, so each file makes one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    // Functions and classes keep their names (error names, log fields, stack traces) where bundling renames them.
    keepNames: true,
    // Whitespace and syntax minified, names kept: a start reads and compiles a third less (discord.js and its packages
    // are 4.1 MB as written, 2.5 MB so), about 0.25 s of CPU per Discord start on this machine. Stack traces keep every
    // function's name; their line numbers were the bundle's, not the sources', before this too.
    minifyWhitespace: true,
    minifySyntax: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  writeThirdPartyNotices(root, metafile, path.join(partial, 'THIRD-PARTY-NOTICES.txt'));
} catch (error) {
  // esbuild has printed what it could not compile (its error lists them); any other failure is printed here.
  if (!Array.isArray(error?.errors)) console.error('sandpiper build:', error);
  rmSync(partial, { recursive: true, force: true });
  process.exit(1);
}
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
try {
  renameSync(partial, path.join(root, 'dist'));
} catch (error) {
  // Another build of the same sources put its dist/ in place between the two calls: that one stays.
  rmSync(partial, { recursive: true, force: true });
  if (!existsSync(compiledEntry(root))) throw error;
}
