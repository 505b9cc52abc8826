/** Migrations: latest on an empty database, re-run is a no-op, rollback → latest, on SQLite and PostgreSQL. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newHexId } from '../../src/shared/ids.js';
import {
  createKnex,
  createStores,
  migrationNames,
  rollbackMigrations,
  runMigrations,
  type Knex,
} from '../../src/storage/index.js';
import { testPostgresUrl } from '../helpers/test-stores.js';
import { createThrowawayDatabase } from '../helpers/throwaway-postgres.js';

const PINNED_TABLES = [
  'users',
  'api_tokens',
  'channel_users',
  'channel_routes',
  'services',
  'workstreams',
  'conversations',
  'structured_memories',
  'watches',
  'approvals',
  'tool_policies',
  'prompt_templates',
  'mcp_servers',
  'notify_deliveries',
];

interface Database {
  knex: Knex;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-migrate-'));
  const knex = createKnex(`sqlite:${join(dir, 'nested', 'db.sqlite')}`);
  return {
    knex,
    close: async () => {
      await knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(url: string): Promise<Database> {
  const schema = `sp_migrate_${newHexId(6)}`;
  const admin = createKnex(url);
  await admin.raw(`CREATE SCHEMA ${schema}`);
  const knex = createKnex(url, { searchPath: [schema] });
  return {
    knex,
    close: async () => {
      await knex.destroy();
      await admin.raw(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.destroy();
    },
  };
}

async function missingTables(knex: Knex): Promise<string[]> {
  const missing: string[] = [];
  for (const table of PINNED_TABLES) if (!(await knex.schema.hasTable(table))) missing.push(table);
  return missing;
}

function migrationSuite(label: string, open: () => Promise<Database>): void {
  describe(`migrations (${label})`, () => {
    let db: Database | undefined;
    const knex = (): Knex => {
      if (db === undefined) throw new Error('database not open');
      return db.knex;
    };
    before(async () => {
      db = await open();
    });
    after(async () => {
      await db?.close();
    });

    it('creates every pinned table on an empty database', async () => {
      assert.deepEqual(await runMigrations(knex()), [...migrationNames]);
      assert.deepEqual(await missingTables(knex()), []);
    });

    it('does nothing when run again', async () => {
      assert.deepEqual(await runMigrations(knex()), []);
      assert.deepEqual(await missingTables(knex()), []);
    });

    it('rolls back to an empty schema and migrates forward again', async () => {
      const stores = createStores(knex());
      await stores.conversations.append('ws-before', { role: 'user', content: 'before rollback' });
      const rolledBack = await rollbackMigrations(knex(), true);
      assert.deepEqual([...rolledBack].sort(), [...migrationNames]);
      assert.deepEqual(await missingTables(knex()), PINNED_TABLES);
      assert.deepEqual(await runMigrations(knex()), [...migrationNames]);
      assert.deepEqual(await missingTables(knex()), []);
      await stores.conversations.append('ws-after', { role: 'user', content: 'after rollback searchable' });
      assert.equal((await stores.conversations.search('searchable')).length, 1);
      assert.equal(await stores.conversations.count('ws-before'), 0);
    });
  });
}

migrationSuite('sqlite', openSqlite);

const pgUrl = testPostgresUrl();
if (pgUrl === undefined) {
  console.log('PostgreSQL migration tests skipped: SANDPIPER_TEST_PG_URL not set');
} else {
  migrationSuite('postgres', () => openPostgres(pgUrl));
}

describe('migrations (postgres, instances starting at once)', () => {
  it(
    'three instances migrating one fresh database at once all start, and the schema is applied once',
    { skip: pgUrl === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
    async () => {
      const database = await createThrowawayDatabase('sp_migrate_race');
      assert.ok(database);
      const instances = [createKnex(database.url), createKnex(database.url), createKnex(database.url)];
      try {
        // Without a lock the losers failed with 42P07 while creating knex's own tables.
        const applied = await Promise.all(instances.map((knex) => runMigrations(knex)));
        assert.deepEqual(
          applied.map((names) => names.length).sort((a, b) => b - a),
          [migrationNames.length, 0, 0],
          'one instance applied them all',
        );
        assert.deepEqual(await runMigrations(instances[0] as Knex), []);
      } finally {
        await Promise.all(instances.map((knex) => knex.destroy()));
        await database.drop();
      }
    },
  );
});
