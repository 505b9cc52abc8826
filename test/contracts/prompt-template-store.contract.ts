/** Contract suite for PromptTemplateStore: unique names, MCP origin rows, update, listing by name. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function promptTemplateStoreContract(label: string, factory: StoresFactory): void {
  describe(`PromptTemplateStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('creates a template once per name with defaults', async () => {
      const created = await stores().promptTemplates.create({
        name: 'review',
        content: 'Review {{file}}',
        variables: ['file'],
      });
      assert.equal(created?.category, 'general');
      assert.equal(created?.origin, 'manual');
      assert.equal(created?.readonly, false);
      assert.deepEqual(created?.variables, ['file']);
      assert.equal(await stores().promptTemplates.create({ name: 'review', content: 'other' }), undefined);
      assert.deepEqual(await stores().promptTemplates.getByName('review'), created);
    });

    it('keeps MCP prompts read-only and lists by origin, ordered by name', async () => {
      await stores().promptTemplates.create({
        name: 'mcp__everything__simple',
        content: '',
        description: 'A simple prompt',
        origin: 'mcp',
        mcpServer: 'everything',
        readonly: true,
      });
      await stores().promptTemplates.create({ name: 'alpha', content: 'A' });
      const mcp = await stores().promptTemplates.list('mcp');
      assert.deepEqual(
        mcp.map((row) => row.name),
        ['mcp__everything__simple'],
      );
      assert.equal(mcp[0]?.readonly, true);
      assert.equal(mcp[0]?.mcpServer, 'everything');
      const names = (await stores().promptTemplates.list()).map((row) => row.name);
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.includes('alpha') && names.includes('review'));
    });

    it('updates and deletes a template', async () => {
      const row = await stores().promptTemplates.create({ name: 'edit', content: 'v1' });
      assert.ok(row);
      assert.equal(
        await stores().promptTemplates.update(row.templateId, {
          content: 'v2',
          isDefault: true,
          variables: ['a', 'b'],
        }),
        true,
      );
      const updated = await stores().promptTemplates.getByName('edit');
      assert.deepEqual([updated?.content, updated?.isDefault, updated?.variables], ['v2', true, ['a', 'b']]);
      assert.equal(await stores().promptTemplates.delete(row.templateId), true);
      assert.equal(await stores().promptTemplates.update(row.templateId, { content: 'v3' }), false);
    });
  });
}
