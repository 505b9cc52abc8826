/**
 * Writes docs/configuration.md (every key) and config.example.toml (required and common keys) from the config schema.
 *   node --import tsx scripts/config-reference.ts          rewrite both files
 *   node --import tsx scripts/config-reference.ts --check  exit 1 when either is stale (src/config/config-reference.test.ts)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configKeys } from '../src/config/config-reference.js';
import { renderExample, renderReference } from '../src/config/render-config-reference.js';

const root = path.resolve(import.meta.dirname, '..');
const keys = configKeys();
const outputs: Array<[string, string]> = [
  ['docs/configuration.md', renderReference(keys)],
  ['config.example.toml', renderExample(keys)],
];
const check = process.argv.includes('--check');
let stale = false;
for (const [file, text] of outputs) {
  const target = path.join(root, file);
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = '';
  }
  if (current === text) continue;
  stale = true;
  if (check) console.error(`${file} is stale: run node --import tsx scripts/config-reference.ts`);
  else writeFileSync(target, text);
}
if (check && stale) process.exit(1);
if (!check) console.log(`wrote ${outputs.map(([file]) => file).join(' and ')} (${keys.length} keys)`);
