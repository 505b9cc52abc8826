/**
 * A fresh SQLite database in a temporary folder with a config file, the admin commands run on it in-process
 * (`runCliInProcess`, as the bin runs them), the stores for seeding rows, and the checks every admin command's
 * output keeps: a usage mistake is exit 2 and one line, a runtime failure exit 1 and one line.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKnex, createStores, type Stores } from '../../src/storage/index.js';
import type { BinResult } from './run-bin.js';
import { runCliInProcess } from './run-cli-in-process.js';

export interface AdminCli {
  dir: string;
  /** The config file every command gets as `--config`. */
  config: string;
  /** One command with `--config` (before a `--`, so the arguments after it stay the command's). */
  cli(...args: string[]): Promise<BinResult>;
  /** Runs `work` on the stores of the same database (seeding rows the commands then read). */
  withStores<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  close(): void;
}

/** A folder with `config.toml` (data in `<dir>/data`, then `extraToml`), migrated. */
export async function startAdminCli(prefix: string, extraToml: readonly string[] = []): Promise<AdminCli> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const config = path.join(dir, 'config.toml');
  writeFileSync(
    config,
    `${[`[gateway]\ndata_dir = ${JSON.stringify(path.join(dir, 'data'))}`, ...extraToml].join('\n\n')}\n`,
  );
  const cli = (...args: string[]): Promise<BinResult> => {
    const end = args.includes('--') ? args.indexOf('--') : args.length;
    return runCliInProcess([...args.slice(0, end), '--config', config, ...args.slice(end)]);
  };
  const migrated = await cli('migrate', '--log-level', 'warn'); // set-up, not under test: no log line
  assert.equal(migrated.code, 0, migrated.stderr);
  const withStores = async <T>(work: (stores: Stores) => Promise<T>): Promise<T> => {
    const knex = createKnex(`sqlite:${path.join(dir, 'data', 'sandpiper.db')}`);
    try {
      return await work(createStores(knex));
    } finally {
      await knex.destroy();
    }
  };
  return { dir, config, cli, withStores, close: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The parsed `--json` output of a command that succeeded. */
export function json<T>(result: BinResult): T {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
}

/** A usage mistake: exit 2, one line on stderr matching `pattern`, nothing on stdout. */
export function assertUsage(result: BinResult, pattern: RegExp): void {
  assert.equal(result.code, 2, `${result.stdout}${result.stderr}`);
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
  assert.equal(result.stdout, '');
}

/** A runtime failure (not found, conflict): exit 1, one line. */
export function assertFailure(result: BinResult, pattern: RegExp): void {
  assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
}
