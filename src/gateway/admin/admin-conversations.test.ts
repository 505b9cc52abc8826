import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GatewayError } from '../../shared/errors.js';
import { INTERRUPTED_TOOL_RESULT } from '../../shared/interruption.js';
import { createTestStores, type TestStores } from '../../../test/helpers/test-stores.js';
import { listConversations, showConversation } from './admin-conversations.js';

const PG_URL = process.env['SANDPIPER_TEST_PG_URL'];
const ENGINES: Array<[string, string | undefined]> = [
  ['sqlite', undefined],
  ...(PG_URL ? [['postgres', PG_URL] as [string, string]] : []),
];

for (const [engine, url] of ENGINES)
  describe(`admin conversations (${engine})`, () => {
    let db: TestStores;
    before(async () => {
      db = await createTestStores(url === undefined ? {} : { url });
      const { userId } = await db.stores.users.createUser('carol');
      await db.stores.workstreams.create({ wsId: 'ws-open', userId, name: 'deploy notes', modelAlias: 'main' });
      await db.stores.workstreams.create({ wsId: 'ws-closed', userId, name: 'old', modelAlias: 'main' });
      await db.stores.workstreams.update('ws-closed', { state: 'closed' });
      await db.stores.workstreams.update('ws-open', { state: 'attention' });
      await db.stores.conversations.append('ws-open', { role: 'system', content: 'You are a helpful agent.' });
      await db.stores.conversations.append('ws-open', {
        role: 'user',
        content: 'use api_key=sk-live-abcdefghijklmnopqrstuv please',
      });
      await db.stores.conversations.append('ws-open', {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'c1',
            name: 'bash',
            arguments: JSON.stringify({ command: 'curl -H "Authorization: Bearer abcdefghijklmnop" x' }),
          },
        ],
      });
    });
    after(() => db.close());

    it('lists open conversations with their owner and activity, closed ones only on request', async () => {
      const open = await listConversations(db.stores);
      assert.deepEqual(
        open.map((c) => [c.ws_id, c.owner, c.activity, c.queued]),
        [['ws-open', 'carol', 'waiting', 0]],
      );
      assert.equal((await listConversations(db.stores, { all: true })).length, 2);
    });

    it('shows a conversation whose turn runs as running, though its row still says idle', async () => {
      const userId = (await db.stores.users.getUserByUsername('carol'))?.userId ?? '';
      await db.stores.workstreams.create({ wsId: 'ws-busy', userId, name: 'busy', modelAlias: 'main' });
      await db.stores.turnJournal.apply([{ kind: 'begin', wsId: 'ws-busy', turnId: 't-busy', resumed: false }]);
      const activity = async (): Promise<string | undefined> =>
        (await listConversations(db.stores)).find((c) => c.ws_id === 'ws-busy')?.activity;
      assert.equal(await activity(), 'running');
      assert.equal((await showConversation(db.stores, 'ws-busy')).conversation.activity, 'running');
      await db.stores.turnJournal.remove('t-busy');
      assert.equal(await activity(), 'idle');
      await db.stores.workstreams.update('ws-busy', { state: 'closed' });
    });

    it('shows recent messages without the system prompt, secrets masked, a waiting call not called interrupted', async () => {
      const { recent } = await showConversation(db.stores, 'ws-open');
      assert.deepEqual(
        recent.map((item) => item.role),
        ['user', 'assistant', 'tool'],
      );
      assert.equal(recent[2]?.text, '(not finished yet)');
      const shown = JSON.stringify(recent);
      assert.ok(!shown.includes('sk-live-abcdefghijklmnopqrstuv') && !shown.includes('abcdefghijklmnop"'), shown);
      assert.ok(
        !shown.includes(INTERRUPTED_TOOL_RESULT),
        'a call still waiting for its approval is not shown as interrupted',
      );
      await assert.rejects(
        showConversation(db.stores, 'nope'),
        (error: unknown) => error instanceof GatewayError && error.code === 'NOT_FOUND',
      );
    });
  });
