import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseToml } from 'smol-toml';
import { packageRoot } from '../shared/package-root.js';
import { configKeys } from './config-reference.js';
import { loadConfig } from './load-config.js';
import { renderExample, renderReference } from './render-config-reference.js';

const root = packageRoot(import.meta.url);
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const REGENERATE = 'stale: run node --import tsx scripts/config-reference.ts';

/** Dotted keys set or shown (commented out) in a TOML text, tables named as in the example. */
function exampleKeys(text: string): string[] {
  const keys: string[] = [];
  let table = '';
  for (const line of text.split('\n')) {
    const header = /^#? ?\[([\w.]+)\]$/.exec(line);
    if (header) table = header[1] ?? '';
    const key = /^#? ?(\w+) = /.exec(line);
    if (key)
      keys.push(
        `${table}.${key[1] ?? ''}`
          .replace(/^models\.main\./, 'models.<alias>.')
          .replace(/^mcp\.servers\.files\./, 'mcp.servers.<name>.'),
      );
  }
  return keys;
}

describe('configuration reference', () => {
  it('docs/configuration.md lists every key of the schema and is current', () => {
    const keys = configKeys();
    const reference = read('docs/configuration.md');
    for (const key of keys) assert.ok(reference.includes(`| \`${key.key}\` |`), `${key.key} in docs/configuration.md`);
    assert.equal(reference, renderReference(keys), `docs/configuration.md is ${REGENERATE}`);
  });

  it('config.example.toml is current, holds at most 40 keys (required and common) and parses', () => {
    const keys = configKeys();
    const text = read('config.example.toml');
    assert.equal(text, renderExample(keys), `config.example.toml is ${REGENERATE}`);
    const shown = exampleKeys(text);
    assert.ok(shown.length <= 40, `config.example.toml shows ${shown.length} keys`);
    const tiers = new Map(keys.map((key) => [key.key, key.tier]));
    for (const key of shown)
      assert.notEqual(tiers.get(key) ?? 'unknown', 'advanced', `${key} is a key of the schema and not advanced`);
    assert.doesNotThrow(() => parseToml(text));
  });

  it('derives cluster.lease_ttl_s from cluster.heartbeat_s unless it is set', () => {
    assert.equal(loadConfig({ env: {}, flags: { 'cluster.heartbeat_s': 10 } }).cluster.lease_ttl_s, 30);
    assert.equal(loadConfig({ env: {} }).cluster.lease_ttl_s, 15);
    assert.equal(
      loadConfig({ env: {}, flags: { 'cluster.heartbeat_s': 2, 'cluster.lease_ttl_s': 5 } }).cluster.lease_ttl_s,
      5,
    );
    assert.throws(
      () => loadConfig({ env: {}, flags: { 'cluster.heartbeat_s': 10, 'cluster.lease_ttl_s': 15 } }),
      /at least twice cluster.heartbeat_s/,
    );
  });
});
