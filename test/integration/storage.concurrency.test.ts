/** Two knex instances on one SQLite file (the CLI admin commands while `start` runs) never fail with SQLITE_BUSY. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createKnex, createStores, type Knex, type Stores } from '../../src/storage/index.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';

describe("SQLite shared by two processes' knex instances", () => {
  let server: TestStores | undefined;
  let adminKnex: Knex | undefined;
  let admin: Stores | undefined;

  before(async () => {
    server = await createTestStores();
    adminKnex = createKnex(server.url);
    admin = createStores(adminKnex);
  });

  after(async () => {
    await adminKnex?.destroy();
    await server?.close();
  });

  const open = (): { main: Stores; cli: Stores; mainKnex: Knex } => {
    if (!server || !admin) throw new Error('not open');
    return { main: server.stores, cli: admin, mainKnex: server.knex };
  };

  it('lets the second instance write while the first holds a write transaction', async () => {
    const { cli, mainKnex } = open();
    let releaseTransaction: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      releaseTransaction = resolve;
    });
    let markInserted: () => void = () => {};
    const inserted = new Promise<void>((resolve) => {
      markInserted = resolve;
    });
    const transaction = mainKnex.transaction(async (trx) => {
      await trx('users').insert({
        user_id: 'held-user',
        username: 'held',
        is_admin: 0,
        created: '2025-01-01T00:00:00',
      });
      markInserted();
      await held;
    });
    await inserted;
    // Reads are not blocked by the writer in WAL mode (and see only committed rows).
    assert.equal(await cli.users.getUserByUsername('held'), undefined);
    const adminWrite = cli.users.createUser('admin-while-locked');
    // Not a timing assertion: the write above must wait for the lock, however long the transaction stays open.
    setTimeout(releaseTransaction, 200);
    await transaction;
    const user = await adminWrite;
    assert.equal((await cli.users.getUserByUsername('admin-while-locked'))?.userId, user.userId);
    assert.ok(await cli.users.getUserByUsername('held'));
  });

  it('interleaves many writes and reads from both instances without errors', async () => {
    const { main, cli } = open();
    await main.workstreams.create({ wsId: 'ws-busy', userId: 'u', name: '', modelAlias: '' });
    const mainWork = (async () => {
      for (let index = 0; index < 40; index += 1) {
        await main.conversations.append('ws-busy', { role: 'user', content: `message ${index}` });
        await main.workstreams.addUsage('ws-busy', 1, 1);
      }
    })();
    const cliWork = (async () => {
      for (let index = 0; index < 20; index += 1) {
        const user = await cli.users.createUser(`cli-${index}`);
        await cli.users.link('discord', `d-${index}`, user.userId);
        await cli.conversations.load('ws-busy');
      }
    })();
    await Promise.all([mainWork, cliWork]);
    assert.equal(await cli.conversations.count('ws-busy'), 40);
    assert.equal((await main.workstreams.get('ws-busy'))?.inputTokens, 40);
    assert.equal((await main.users.getLink('discord', 'd-19'))?.channelType, 'discord');
  });
});
