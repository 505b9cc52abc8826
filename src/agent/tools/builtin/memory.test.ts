import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createToolContext } from '../../../../test/helpers/tool-context.js';
import { createTestStores, type TestStores } from '../../../../test/helpers/test-stores.js';
import type { ToolHandler } from '../tool.js';
import { createMemoryHandler, GLOBAL_NEEDS_ADMIN } from './memory.js';

describe('memory scopes and who may write them', () => {
  let db: TestStores;
  let memory: ToolHandler;
  const context = (wsId: string) => createToolContext('/tmp', { workstreamId: wsId });

  before(async () => {
    db = await createTestStores();
    const { users, workstreams } = db.stores;
    const admin = await users.createUser('root-admin', { isAdmin: true });
    const bob = await users.createUser('bob');
    await workstreams.create({ wsId: 'ws-admin', userId: admin.userId, name: '', modelAlias: '' });
    await workstreams.create({ wsId: 'ws-bob', userId: bob.userId, name: '', modelAlias: '' });
    await workstreams.create({ wsId: 'ws-nobody', userId: '', name: '', modelAlias: '' });
    memory = createMemoryHandler({
      memories: db.stores.memories,
      ownerOf: async (wsId) => (await workstreams.get(wsId))?.userId ?? '',
      userOf: async (userId) => {
        const user = await users.getUser(userId);
        return user && { username: user.username, isAdmin: user.isAdmin };
      },
    });
  });
  after(() => db.close());

  it("saves to the owner's user scope by default, naming the author, and to the workstream without an owner", async () => {
    const save = { action: 'save', name: 'style', content: 'tabs' };
    assert.equal((await memory.prepare(save, context('ws-bob'))).needsApproval, false);
    assert.deepEqual(await memory.execute(save, context('ws-bob')), {
      output: "Saved memory 'style' (type=project, scope=user)",
      isError: false,
    });
    const bob = await db.stores.users.getUserByUsername('bob');
    assert.equal((await db.stores.memories.get('style', 'user', bob?.userId ?? ''))?.author, 'bob');
    assert.deepEqual(await memory.execute(save, context('ws-nobody')), {
      output: "Saved memory 'style' (type=project, scope=workstream)",
      isError: false,
    });
    assert.equal(await db.stores.memories.get('style', 'global', ''), undefined);
  });

  it("refuses a global write from a non-admin's (or an ownerless) workstream, before any card", async () => {
    for (const action of ['save', 'delete']) {
      const args = { action, name: 'rule', content: 'obey me', scope: 'global' };
      for (const wsId of ['ws-bob', 'ws-nobody']) {
        const prepared = await memory.prepare(args, context(wsId));
        assert.equal(prepared.error, GLOBAL_NEEDS_ADMIN, `${action} in ${wsId}`);
        assert.equal(prepared.needsApproval, false);
        assert.deepEqual(await memory.execute(args, context(wsId)), { output: GLOBAL_NEEDS_ADMIN, isError: true });
      }
    }
    assert.equal(await db.stores.memories.get('rule', 'global', ''), undefined);
  });

  it('asks an admin to approve a global write, then saves it with the admin as author; reading global stays open', async () => {
    const args = { action: 'save', name: 'rule', content: 'Deploys freeze on Fridays', scope: 'global' };
    const prepared = await memory.prepare(args, context('ws-admin'));
    assert.deepEqual(
      [prepared.needsApproval, prepared.approvalLabel, prepared.error],
      [true, 'memory_global', undefined],
    );
    assert.equal((await memory.execute(args, context('ws-admin'))).isError, false);
    assert.equal((await db.stores.memories.get('rule', 'global', ''))?.author, 'root-admin');
    const listed = await memory.execute({ action: 'list', scope: 'global' }, context('ws-bob'));
    assert.match(
      listed.output as string,
      /^Memories \(1\):\n<untrusted source="memory">\n {2}\[project:global\] rule\n {4}Deploys freeze on Fridays\n {4}\(written by root-admin\)\n<\/untrusted>$/,
    );
  });
});
