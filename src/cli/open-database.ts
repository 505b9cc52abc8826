/** Opens the database for an admin command: says which one with --verbose, and never creates a new SQLite file by accident. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { GatewayError } from '../shared/errors.js';
import { createSilentLogger } from '../shared/logger.js';
import type { OpenStorage } from '../storage-open.js';
import { writeLine, type CliContext } from './cli-context.js';

/** The SQLite file of a `sqlite:` URL (absolute), or undefined for PostgreSQL and in-memory databases. */
export function sqliteFile(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const file = url.slice('sqlite:'.length);
  if (file === ':memory:') return undefined;
  return path.resolve(file.startsWith('//') ? file.slice(2) : file);
}

/** The database as a human reads it: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(url: string): string {
  const file = sqliteFile(url);
  if (file !== undefined) return `SQLite ${file}`;
  if (url.startsWith('sqlite:')) return 'SQLite in memory';
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return `PostgreSQL ${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ''}${parsed.host}${parsed.pathname}`;
  } catch {
    return 'PostgreSQL (unparsable URL)';
  }
}

/** Writes `database: …` to stderr when --verbose is set (every command that opens the database). */
export function reportDatabase(context: CliContext, config: Config): void {
  if (context.flags['verbose'] !== true) return;
  const source = config.source.file ? `config ${config.source.file}` : 'no config file';
  writeLine(context.io.stderr, `database: ${describeDatabase(config.database.url)} (${source})`);
}

/**
 * Opens and migrates the database of an admin command. A SQLite file that does not exist yet is an error unless
 * --create-db is given: a command run from the wrong folder or with the wrong config must not start a second, empty database.
 */
export async function openAdminStorage(context: CliContext): Promise<OpenStorage> {
  const config = context.loadConfig();
  reportDatabase(context, config);
  const file = sqliteFile(config.database.url);
  if (file !== undefined && !existsSync(file) && context.flags['create-db'] !== true) {
    const source = config.source.file ? `config ${config.source.file}` : 'no config file, so the platform state folder';
    throw new GatewayError(
      'NOT_FOUND',
      `no database at ${file} (${source}); create it with "sandpiper migrate" or "sandpiper start", pass --create-db, or point --config / SANDPIPER_DATA_DIR at the existing one`,
    );
  }
  // knex and the SQLite driver load only for commands that use the database (`--help` stays fast).
  const { openStorage } = await import('../storage-open.js');
  return openStorage(config, createSilentLogger());
}
