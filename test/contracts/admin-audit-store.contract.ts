/** Contract suite for AdminAuditStore: entries are appended and listed newest first, bounded by the limit. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useStores, type StoresFactory } from './stores-factory.js';

export function adminAuditStoreContract(label: string, factory: StoresFactory): void {
  describe(`AdminAuditStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('appends entries and lists them newest first, at most `limit`', async () => {
      assert.deepEqual(await stores().adminAudit.list(10), []);
      await stores().adminAudit.record({
        actor: 'cli:root',
        action: 'policy.add',
        target: 'bash',
        outcome: 'ok',
        detail: 'action=allow',
      });
      await stores().adminAudit.record({ actor: 'api:ops', action: 'mcp.reload', target: 'all', outcome: 'INTERNAL' });
      const entries = await stores().adminAudit.list(10);
      assert.deepEqual(
        entries.map((entry) => [entry.actor, entry.action, entry.target, entry.outcome, entry.detail]),
        [
          ['api:ops', 'mcp.reload', 'all', 'INTERNAL', ''],
          ['cli:root', 'policy.add', 'bash', 'ok', 'action=allow'],
        ],
      );
      assert.ok(entries.every((entry) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(entry.created)));
      assert.ok((entries[0]?.auditId ?? 0) > (entries[1]?.auditId ?? 0));
      assert.deepEqual(
        (await stores().adminAudit.list(1)).map((entry) => entry.action),
        ['mcp.reload'],
      );
    });
  });
}
