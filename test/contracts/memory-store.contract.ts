/** Contract suite for MemoryStore: identity by (name, scope, scopeId), substring search, access tracking. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryRow } from '../../src/storage/index.js';
import type { VisibleMemoryQuery } from '../../src/storage/memory-store.js';
import { useStores, type StoresFactory } from './stores-factory.js';

type MemoryInput = Pick<MemoryRow, 'name' | 'description' | 'type' | 'scope' | 'scopeId' | 'content'>;

function memory(name: string, content: string, extra: Partial<MemoryInput> = {}): MemoryInput {
  return { name, description: '', type: 'project', scope: 'global', scopeId: '', content, ...extra };
}

export function memoryStoreContract(label: string, factory: StoresFactory): void {
  describe(`MemoryStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('creates a memory once per (name, scope, scopeId)', async () => {
      const created = await stores().memories.create(memory('build_cmd', 'npm run build'));
      assert.equal(created?.accessCount, 0);
      assert.equal(await stores().memories.create(memory('build_cmd', 'other')), undefined);
      const perWs = await stores().memories.create(
        memory('build_cmd', 'make', { scope: 'workstream', scopeId: 'ws-1' }),
      );
      assert.ok(perWs);
      assert.equal((await stores().memories.get('build_cmd', 'global', ''))?.content, 'npm run build');
      assert.equal((await stores().memories.get('build_cmd', 'workstream', 'ws-1'))?.content, 'make');
      assert.equal(await stores().memories.get('build_cmd', 'user', 'u'), undefined);
    });

    it('keeps who last wrote a memory ("" when not given)', async () => {
      await stores().memories.create({
        ...memory('author_note', 'first', { scope: 'user', scopeId: 'u-a' }),
        author: 'alice',
      });
      assert.equal((await stores().memories.get('author_note', 'user', 'u-a'))?.author, 'alice');
      assert.ok(await stores().memories.update('author_note', 'user', 'u-a', { content: 'second', author: 'carol' }));
      assert.deepEqual(
        [
          (await stores().memories.get('author_note', 'user', 'u-a'))?.author,
          (await stores().memories.listVisible({ wsId: 'x', userId: 'u-a' }))[0]?.author,
        ],
        ['carol', 'carol'],
      );
      assert.equal((await stores().memories.get('build_cmd', 'global', ''))?.author, '');
    });

    it('updates only content, description and type', async () => {
      await stores().memories.create(memory('style', 'tabs', { scope: 'user', scopeId: 'u-1' }));
      assert.equal(
        await stores().memories.update('style', 'user', 'u-1', {
          content: 'spaces',
          type: 'feedback',
          description: 'indent',
        }),
        true,
      );
      const row = await stores().memories.get('style', 'user', 'u-1');
      assert.deepEqual([row?.content, row?.type, row?.description], ['spaces', 'feedback', 'indent']);
      assert.equal(await stores().memories.update('style', 'user', 'u-1', {}), false);
      assert.equal(await stores().memories.update('missing', 'user', 'u-1', { content: 'x' }), false);
    });

    it('searches every term as a case-insensitive substring of name, description or content', async () => {
      await stores().memories.create(
        memory('deploy_steps', 'Run the Ansible playbook', {
          description: 'production deploy',
          scope: 'workstream',
          scopeId: 'ws-s',
        }),
      );
      await stores().memories.create(memory('test_steps', 'run vitest', { scope: 'workstream', scopeId: 'ws-s' }));
      await stores().memories.create(memory('percent', 'discount 100%_off', { scope: 'workstream', scopeId: 'ws-s' }));
      const filter = { scope: 'workstream' as const, scopeId: 'ws-s' };
      const names = async (query: string): Promise<string[]> =>
        (await stores().memories.search(query, filter)).map((row) => row.name).sort();
      assert.deepEqual(await names('ANSIBLE'), ['deploy_steps']);
      assert.deepEqual(await names('run steps'), ['deploy_steps', 'test_steps']);
      assert.deepEqual(await names('run production'), ['deploy_steps']);
      assert.deepEqual(await names('100%_'), ['percent']);
      assert.deepEqual(await names('%'), ['percent']);
      assert.deepEqual(await names('_'), ['deploy_steps', 'percent', 'test_steps']);
      assert.deepEqual(await names('nothing-like-this'), []);
      assert.equal((await stores().memories.search('', filter)).length, 3);
    });

    it('lists newest first with filters and a limit', async () => {
      await stores().memories.create(memory('a1', 'x', { type: 'reference', scope: 'user', scopeId: 'lister' }));
      await stores().memories.create(memory('a2', 'y', { type: 'user', scope: 'user', scopeId: 'lister' }));
      await stores().memories.update('a1', 'user', 'lister', { content: 'x2' });
      const listed = await stores().memories.list({ scope: 'user', scopeId: 'lister' });
      assert.deepEqual(listed.map((row) => row.name).sort(), ['a1', 'a2']);
      assert.deepEqual(
        (await stores().memories.list({ scope: 'user', scopeId: 'lister', type: 'reference' })).map((r) => r.name),
        ['a1'],
      );
      assert.equal((await stores().memories.list({ scope: 'user', scopeId: 'lister' }, 1)).length, 1);
    });

    it("shows a workstream global memories, its own and its owner's, never another workstream's or user's", async () => {
      await stores().memories.create(memory('vis_global', 'shared fact about walruses'));
      await stores().memories.create(memory('vis_ws', 'walruses in ws-v1', { scope: 'workstream', scopeId: 'ws-v1' }));
      await stores().memories.create(
        memory('vis_other_ws', 'walruses in ws-v2', { scope: 'workstream', scopeId: 'ws-v2' }),
      );
      await stores().memories.create(
        memory('vis_user', 'walruses for u-v1', { scope: 'user', scopeId: 'u-v1', type: 'user' }),
      );
      await stores().memories.create(memory('vis_other_user', 'walruses for u-v2', { scope: 'user', scopeId: 'u-v2' }));
      const visibility = { wsId: 'ws-v1', userId: 'u-v1' };
      const names = async (query: VisibleMemoryQuery = {}): Promise<string[]> =>
        (await stores().memories.listVisible(visibility, query))
          .map((row) => row.name)
          .filter((name) => name.startsWith('vis_'))
          .sort();
      assert.deepEqual(await names(), ['vis_global', 'vis_user', 'vis_ws']);
      assert.deepEqual(await names({ scope: 'user' }), ['vis_user']);
      assert.deepEqual(await names({ type: 'user' }), ['vis_user']);
      assert.deepEqual(await names({ anyTerms: ['WALRUSES', 'nomatch'] }), ['vis_global', 'vis_user', 'vis_ws']);
      assert.deepEqual(
        await names({ anyTerms: ['walrus'], prefixes: true }),
        ['vis_global', 'vis_user', 'vis_ws'],
        'terms match word prefixes',
      );
      assert.deepEqual(await names({ anyTerms: ['walrus'] }), [], 'or whole words only');
      assert.deepEqual(
        await names({ anyTerms: ['Shared', '"(OR'] }),
        ['vis_global'],
        'search syntax is never interpreted',
      );
      assert.deepEqual(await names({ anyTerms: ['100%', '*'] }), []);
      assert.deepEqual(
        await names({ anyTerms: ['vis', 'other'] }),
        ['vis_global', 'vis_user', 'vis_ws'],
        'names are indexed word by word',
      );
      const anonymous = (await stores().memories.listVisible({ wsId: 'ws-v1', userId: '' }))
        .map((row) => row.name)
        .filter((n) => n.startsWith('vis_'));
      assert.deepEqual(anonymous.sort(), ['vis_global', 'vis_ws']);
      assert.deepEqual(await stores().memories.listVisible({ wsId: 'ws-v1', userId: '' }, { scope: 'user' }), []);
      const globals = (await stores().memories.list({ scope: 'global' }, 1000)).length;
      assert.equal(await stores().memories.countVisible(visibility), globals + 2);
    });

    it('counts accesses and deletes', async () => {
      const row = await stores().memories.create(memory('touched', 'c', { scope: 'user', scopeId: 't' }));
      assert.ok(row);
      await stores().memories.touch([row.memoryId]);
      await stores().memories.touch([row.memoryId]);
      await stores().memories.touch([]);
      assert.equal((await stores().memories.get('touched', 'user', 't'))?.accessCount, 2);
      assert.equal(await stores().memories.delete('touched', 'user', 't'), true);
      assert.equal(await stores().memories.delete('touched', 'user', 't'), false);
    });
  });
}
