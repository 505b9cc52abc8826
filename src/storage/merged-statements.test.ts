/**
 * Row writes of one group merged into one statement per shape: the planner's rule (a write moves earlier only across
 * writes touching none of its keys, never across a barrier), and on a real SQLite file the statements a group of many
 * threads' writes costs, the rows' order, and a row that cannot be stored failing only its own caller.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { StorageError } from '../shared/errors.js';
import { planStatements, type Plannable } from './merged-statements.js';

interface Entry extends Plannable {
  name: string;
}

const history = (ws: string, name: string): Entry => ({
  name,
  rowWrite: { insertInto: 'conversations', row: { ws_id: ws, content: name } },
  touches: [`ws:${ws}`],
});
const state = (ws: string, name: string): Entry => ({ name, touches: [`ws:${ws}`] });
const barrier = (name: string): Entry => ({ name });
const names = (plan: Entry[][]): string[][] => plan.map((statement) => statement.map((entry) => entry.name));

describe('planStatements', () => {
  it("merges a shape's rows across writes of other workstreams, keeping their order", () => {
    const plan = planStatements([history('a', 'a1'), state('b', 'b-state'), history('c', 'c1'), history('a', 'a2')]);
    assert.deepEqual(names(plan), [['a1', 'c1', 'a2'], ['b-state']]);
  });

  it('moves no row across a write of its own workstream', () => {
    const plan = planStatements([history('a', 'a1'), state('a', 'a-state'), history('a', 'a2'), history('b', 'b1')]);
    assert.deepEqual(names(plan), [['a1'], ['a-state'], ['a2', 'b1']]);
  });

  it('moves nothing across a write without keys', () => {
    const plan = planStatements([history('a', 'a1'), barrier('claims'), history('b', 'b1'), history('c', 'c1')]);
    assert.deepEqual(names(plan), [['a1'], ['claims'], ['b1', 'c1']]);
  });

  it('keeps rows of other columns, other tables and deletes apart', () => {
    const other: Entry = {
      name: 'a-tool',
      rowWrite: { insertInto: 'conversations', row: { ws_id: 'a', content: 'x', tool_calls: '[]' } },
      touches: ['ws:a'],
    };
    const end = (ws: string, turn: string): Entry => ({
      name: `end-${turn}`,
      rowWrite: { deleteFrom: 'turn_journal', column: 'turn_id', equals: turn },
      touches: [`ws:${ws}`],
    });
    const plan = planStatements([history('b', 'b1'), other, end('c', 't1'), end('d', 't2'), history('e', 'e1')]);
    assert.deepEqual(names(plan), [['b1', 'e1'], ['a-tool'], ['end-t1', 'end-t2']]);
  });
});

describe('merged row writes on SQLite', () => {
  let db: TestStores;
  let userId: string;
  const statements: string[] = [];
  const onQuery = (query: { sql: string }): void => {
    statements.push(query.sql);
  };

  before(async () => {
    db = await createTestStores();
    userId = (await db.stores.users.createUser('merge-owner')).userId;
  });
  after(() => db.close());

  async function counted(work: () => Promise<unknown>): Promise<string[]> {
    statements.length = 0;
    db.knex.on('query', onQuery);
    try {
      await work();
    } finally {
      db.knex.off('query', onQuery);
    }
    return statements.filter((sql) => !/^(begin|commit|rollback)/i.test(sql));
  }

  const create = (wsId: string): Promise<unknown> =>
    db.stores.workstreams.create(
      { wsId, userId, name: wsId, modelAlias: 'default' },
      { route: { channelType: 'discord', channelId: `thread-${wsId}` } },
    );

  it("writes twelve threads' new workstreams, messages, turn starts, live messages and ends in one statement per kind", async () => {
    const ids = Array.from({ length: 12 }, (_, index) => `ws-merge-${index}`);
    assert.equal((await counted(() => Promise.all(ids.map(create)))).length, 1, 'new workstreams');
    const turns = (wsId: string): Promise<unknown> =>
      db.stores.turnJournal.apply([
        { kind: 'begin', turnId: `turn-${wsId}`, wsId, resumed: false, message: { role: 'user', content: 'q' } },
      ]);
    assert.equal((await counted(() => Promise.all(ids.map(turns)))).length, 1, 'accepted');
    const answers = (wsId: string): Promise<unknown> =>
      Promise.all([1, 2, 3].map((n) => db.stores.conversations.append(wsId, { role: 'assistant', content: `a${n}` })));
    assert.equal((await counted(() => Promise.all(ids.map(answers)))).length, 1, 'answers');
    const live = (wsId: string): Promise<unknown> =>
      db.stores.routes.setLiveState('discord', `thread-${wsId}`, `{"ws":"${wsId}"}`);
    assert.equal((await counted(() => Promise.all(ids.map(live)))).length, 1, 'live messages recorded');
    const ends = (wsId: string): Promise<unknown> =>
      db.stores.turnJournal.apply([{ kind: 'end', turnId: `turn-${wsId}`, wsId }]);
    assert.equal((await counted(() => Promise.all(ids.map(ends)))).length, 1, 'ended');
    for (const wsId of ids) {
      const loaded = await db.stores.conversations.load(wsId);
      assert.deepEqual(
        loaded.map((message) => message.content),
        ['q', 'a1', 'a2', 'a3'],
        `${wsId}: its history in order`,
      );
      assert.equal(await db.stores.turnJournal.forWorkstream(wsId), undefined);
      assert.equal((await db.stores.routes.getRoute('discord', `thread-${wsId}`))?.liveState, `{"ws":"${wsId}"}`);
    }
  });

  it('fails only the row that cannot be stored; the rows merged with it land', async () => {
    await create('ws-merge-taken');
    const results = await Promise.allSettled(['ws-merge-new-1', 'ws-merge-taken', 'ws-merge-new-2'].map(create));
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const [, taken] = results;
    assert.ok(taken?.status === 'rejected' && taken.reason instanceof StorageError, 'the caller gets a storage error');
    for (const wsId of ['ws-merge-new-1', 'ws-merge-new-2'])
      assert.equal((await db.stores.workstreams.get(wsId))?.wsId, wsId, `${wsId} is stored`);
  });
});
