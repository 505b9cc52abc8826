import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/shared/package-root.js';

// The repository, also when the test runs as a compiled copy (scripts/run-tests.mjs).
const root = packageRoot(import.meta.url);
const srcDir = path.join(root, 'src');

interface ImportRef {
  file: string;
  specifier: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function importsOf(file: string): ImportRef[] {
  const text = readFileSync(file, 'utf8');
  const refs: ImportRef[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+['"]([^'"]+)['"]/gms;
  for (const match of text.matchAll(statement)) {
    refs.push({ file, specifier: match[3] as string, typeOnly: Boolean(match[2]) });
  }
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm))
    refs.push({ file, specifier: match[1] as string, typeOnly: false });
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
    refs.push({ file, specifier: match[1] as string, typeOnly: false });
  return refs;
}

/** Runtime imports that load with the file itself (static `import`/`export … from`, not `import()` or types). */
function staticImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+['"]([^'"]+)['"]/gms))
    if (!match[2]) specifiers.push(match[3] as string);
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) specifiers.push(match[1] as string);
  return specifiers;
}

/** Every package a file pulls in statically, following relative imports (`.js` specifiers name `.ts` files). */
function staticPackagesFrom(entry: string): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of staticImportsOf(file)) {
      if (!specifier.startsWith('.')) {
        if (!packages.has(specifier)) packages.set(specifier, file);
        continue;
      }
      const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
      if (target.endsWith('.ts')) pending.push(target);
    }
  }
  return packages;
}

const rel = (file: string): string => path.relative(root, file).split(path.sep).join('/');
const files = sourceFiles(srcDir);
const allImports = files.flatMap(importsOf);

/** The src/ folder (first segment) a relative import lands in, or undefined for packages. */
function targetArea(ref: ImportRef): string | undefined {
  if (!ref.specifier.startsWith('.')) return undefined;
  const target = rel(path.resolve(path.dirname(ref.file), ref.specifier));
  return target.startsWith('src/') ? target.slice(4).split('/')[0] : undefined;
}

const areaOf = (file: string): string => rel(file).slice(4).split('/')[0] as string;

const VENDORS: ReadonlyArray<[RegExp, string[]]> = [
  [/^(discord\.js|@discordjs\/)/, ['src/channels/discord/']],
  [/^@slack\//, ['src/channels/slack/']],
  [/^openai(\/|$)/, ['src/agent/providers/openai/']],
  [/^@anthropic-ai\//, ['src/agent/providers/anthropic/']],
  [/^@modelcontextprotocol\/sdk/, ['src/agent/mcp/']],
  [/^(knex|pg|sqlite3)(\/|$)/, ['src/storage/']],
  [/^jose(\/|$)/, ['src/gateway/http/auth.ts']],
  // libvips is large: one file resizes images, importing sharp on the first image only.
  [/^sharp(\/|$)/, ['src/gateway/attachments/fit-image.ts']],
  // The OpenTelemetry SDK lives in the composition root; everything else records through @opentelemetry/api.
  [/^@opentelemetry\/(?!api$)/, ['src/main-telemetry.ts']],
];

describe('dependency rules (docs/architecture.md §2)', () => {
  it('finds the source tree', () => {
    assert.ok(files.length > 10, 'expected source files under src/');
  });

  it('confines each vendor SDK to its folder', () => {
    const violations = allImports
      .filter((ref) => !ref.typeOnly)
      .flatMap((ref) => {
        const rule = VENDORS.find(([pattern]) => pattern.test(ref.specifier));
        if (!rule) return [];
        return rule[1].some((allowed) => rel(ref.file).startsWith(allowed))
          ? []
          : [`${rel(ref.file)} imports ${ref.specifier}`];
      });
    assert.deepEqual(violations, []);
  });

  it('keeps shared/ a leaf', () => {
    const violations = allImports
      .filter((ref) => areaOf(ref.file) === 'shared' && targetArea(ref) !== undefined && targetArea(ref) !== 'shared')
      .map((ref) => `${rel(ref.file)} imports ${ref.specifier}`);
    assert.deepEqual(violations, []);
  });

  it('never lets agent and channels import each other, gateway or storage at runtime', () => {
    const forbidden: Record<string, string[]> = {
      agent: ['channels', 'gateway', 'storage', 'cli'],
      channels: ['agent', 'gateway', 'storage', 'cli'],
      storage: ['channels', 'gateway', 'cli'],
      gateway: ['cli'],
    };
    const violations = allImports
      .filter((ref) => !ref.typeOnly)
      .filter((ref) => (forbidden[areaOf(ref.file)] ?? []).includes(targetArea(ref) ?? ''))
      .map((ref) => `${rel(ref.file)} imports ${ref.specifier}`);
    assert.deepEqual(violations, []);
  });

  it('loads discord.js, bolt, openai and the Anthropic SDK only on demand (dynamic import when configured)', () => {
    const lazy = /^(discord\.js|@discordjs\/|@slack\/|openai(\/|$)|@anthropic-ai\/|sharp(\/|$))/;
    for (const entry of ['cli.ts', 'main.ts', 'main-agent.ts', 'main-chat.ts']) {
      const eager = [...staticPackagesFrom(path.join(srcDir, entry))]
        .filter(([specifier]) => lazy.test(specifier))
        .map(([specifier, file]) => `${rel(file)} imports ${specifier}`);
      assert.deepEqual(eager, [], `start-up path from src/${entry}`);
    }
  });

  it('reads process.env in one file only', () => {
    const code = (file: string): string =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .join('\n');
    const readers = files.filter((file) => /process\.env\b/.test(code(file))).map(rel);
    assert.deepEqual(readers, ['src/shared/environment.ts']);
  });
});
