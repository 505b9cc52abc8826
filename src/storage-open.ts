/** Opens the configured database, applies migrations, and builds the stores (part of the composition root). */
import type { Config } from './config/index.js';
import type { Logger } from './shared/logger.js';
import { createKnex, createStores, pendingMigrations, runMigrations, type Stores } from './storage/index.js';

export interface OpenStorage {
  stores: Stores;
  /** Migrations not applied yet (empty after a migrating open). */
  pendingMigrations(): Promise<string[]>;
  close(): Promise<void>;
}

export async function openStorage(
  config: Config,
  logger: Logger,
  options: { migrate?: boolean } = {},
): Promise<OpenStorage> {
  const knex = createKnex(config.database.url);
  try {
    if (options.migrate !== false) {
      const applied = await runMigrations(knex);
      if (applied.length > 0) logger.info({ migrations: applied }, 'storage.migrated');
    }
  } catch (error) {
    await knex.destroy();
    throw error;
  }
  return { stores: createStores(knex), pendingMigrations: () => pendingMigrations(knex), close: () => knex.destroy() };
}
