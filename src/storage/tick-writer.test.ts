/**
 * The shared hot-path transaction (ADR 0026) on a real SQLite file: the writes of one event-loop turn commit together,
 * each caller hears only after the commit (another connection already sees its row), a read made after a write was
 * handed in sees it, a write that cannot be stored fails its own caller while the rest of its batch lands, and a
 * statement outside the batches waits for one batch at most.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { createKnex, type Knex } from './db.js';
import { StorageError } from '../shared/errors.js';
import { TickWriter } from './tick-writer.js';
import { BatchRunner } from './batch-db.js';

describe('TickWriter', () => {
  let db: TestStores;
  let reader: Knex;
  let userId: string;

  before(async () => {
    db = await createTestStores();
    reader = createKnex(db.url);
    userId = (await db.stores.users.createUser('tick-owner')).userId;
  });
  after(async () => {
    await reader.destroy();
    await db.close();
  });

  async function workstream(wsId: string): Promise<void> {
    await db.stores.workstreams.create(
      { wsId, userId, name: wsId, modelAlias: 'default' },
      { route: { channelType: 'discord', channelId: `thread-${wsId}` } },
    );
  }

  it('commits the journal, state, live_state and history writes of one event-loop turn in one transaction', async () => {
    await workstream('ws-tick-1');
    const begins: string[] = [];
    const onQuery = (query: { sql: string }): void => {
      if (/^begin/i.test(query.sql)) begins.push(query.sql);
    };
    db.knex.on('query', onQuery);
    const seen: Record<string, boolean> = {};
    const { stores } = db;
    await Promise.all([
      stores.turnJournal
        .apply([{ kind: 'begin', turnId: 'turn-tick-1', wsId: 'ws-tick-1', resumed: false }])
        .then(async () => {
          seen.journal = (await reader('turn_journal').where({ turn_id: 'turn-tick-1' })).length === 1;
        }),
      stores.workstreams.applyChanges([{ wsId: 'ws-tick-1', state: 'thinking', inputTokens: 7 }]).then(async () => {
        seen.state = (await reader('workstreams').where({ ws_id: 'ws-tick-1', state: 'thinking' })).length === 1;
      }),
      stores.routes.setLiveState('discord', 'thread-ws-tick-1', '{"v":1}').then(async () => {
        seen.liveState =
          (await reader('channel_routes').where({ channel_id: 'thread-ws-tick-1' }).whereNotNull('live_state'))
            .length === 1;
      }),
      stores.conversations.append('ws-tick-1', { role: 'user', content: 'hello' }).then(async () => {
        seen.history = (await reader('conversations').where({ ws_id: 'ws-tick-1', content: 'hello' })).length === 1;
      }),
    ]);
    db.knex.off('query', onQuery);
    assert.deepEqual(
      seen,
      { journal: true, state: true, liveState: true, history: true },
      'each caller hears after its row is readable elsewhere',
    );
    assert.equal(begins.length, 1, 'one transaction for the four writers');
  });

  it('fails only the write that cannot be stored; the rest of its batch lands', async () => {
    await workstream('ws-tick-2');
    const approval = {
      approvalId: 'approval-tick-dup',
      wsId: 'ws-tick-2',
      turnId: 'turn-tick-2',
      kind: 'tools' as const,
      ownerUserId: userId,
      items: {},
    };
    await db.stores.approvals.create(approval);
    const [duplicate, appended, live] = await Promise.allSettled([
      db.stores.approvals.create(approval),
      db.stores.conversations.append('ws-tick-2', { role: 'user', content: 'still stored' }),
      db.stores.routes.setLiveState('discord', 'thread-ws-tick-2', '{"v":1}'),
    ]);
    assert.equal(duplicate.status, 'rejected');
    assert.ok(
      duplicate.status === 'rejected' && duplicate.reason instanceof StorageError,
      'the caller gets a storage error',
    );
    assert.equal(appended.status, 'fulfilled');
    assert.equal(live.status, 'fulfilled');
    assert.deepEqual(
      (await reader('conversations').where({ ws_id: 'ws-tick-2' })).map((row: { content: string }) => row.content),
      ['still stored'],
    );
  });

  it('shows a write handed in to a read made after it, before the write was awaited', async () => {
    await workstream('ws-tick-3');
    const appended = db.stores.conversations.append('ws-tick-3', { role: 'assistant', content: 'the answer' });
    const history = await db.stores.conversations.load('ws-tick-3');
    assert.deepEqual(
      history.map((message) => message.content),
      ['the answer'],
    );
    await appended;
  });

  it('lets a statement outside the batches (the inbound claim) in after one bounded batch', async () => {
    await db.knex.schema.createTable('tick_probe', (table) => table.integer('n'));
    const writer = new TickWriter(db.knex, { maxWrites: 2 });
    const runner = new BatchRunner(db.knex);
    // Asked for on the write connection while the first batch is sent: it runs when that batch committed, before the
    // next one (the engine sends a batch once the one before it committed).
    let outside: Promise<Array<{ n?: unknown }>> | undefined;
    const onQuery = (query: { sql: string }): void => {
      if (outside === undefined && /^begin/i.test(query.sql))
        outside = runner.alone((batch) => batch.run(batch.table('tick_probe').count({ n: '*' })));
    };
    db.knex.on('query', onQuery);
    const writes = [1, 2, 3, 4, 5, 6].map((n) => writer.write((db) => db.table('tick_probe').insert({ n })));
    await Promise.all(writes);
    db.knex.off('query', onQuery);
    assert.equal(Number((await outside)?.[0]?.n), 2);
    assert.equal(writer.pending, 0);
    await writer.flush();
  });

  it('a kill between any two steps of a turn leaves an ordered prefix of its commit points in the database, each told truly', async () => {
    await workstream('ws-tick-crash');
    const points = ['accepted', 'tool started', 'tool finished', 'answered', 'ended'];
    type Step = { hand: string } | 'moment' | 'commit';
    const script: Step[] = [
      { hand: 'accepted' },
      'moment',
      { hand: 'tool started' },
      'commit',
      'moment',
      { hand: 'tool finished' },
      { hand: 'answered' },
      'commit',
      'moment',
      { hand: 'ended' },
      'commit',
      'moment',
      'commit',
    ];
    for (let cut = 0; cut <= script.length; cut++) {
      const moments: Array<() => void> = [];
      const writer = new TickWriter(db.knex, { schedule: (start) => moments.push(start) });
      const told = new Map<string, 'committed' | 'failed'>();
      const turnId = `crash-${cut}`;
      // 'commit': the batch in flight (holding the oldest write not settled yet) commits.
      const unsettled: Array<Promise<unknown>> = [];
      for (const step of script.slice(0, cut)) {
        if (step === 'moment') moments.shift()?.();
        else if (step === 'commit') {
          await unsettled.shift();
          // The engine sees the batch end and asks for its next moment.
          for (let i = 0; i < 10; i++) await Promise.resolve();
        } else {
          const written = writer.write(
            (handle) =>
              handle.table('turn_journal').insert({
                turn_id: `${turnId}-${step.hand}`,
                ws_id: 'ws-tick-crash',
                resumed: 0,
                partial_text: step.hand,
                settled: 0,
                started: '',
                updated: '',
              }),
            { oneStatement: true },
          );
          unsettled.push(
            written.then(
              () => told.set(step.hand, 'committed'),
              () => told.set(step.hand, 'failed'),
            ),
          );
        }
      }
      // The kill: no batch starts any more; the one running ends as SQLite ends it (committed or not at all).
      writer.stop();
      await writer.committed();
      const stored = (
        (await reader('turn_journal')
          .where('turn_id', 'like', `${turnId}-%`)
          .select('partial_text')
          .orderByRaw('rowid')) as Array<{ partial_text: string }>
      ).map((row) => row.partial_text);
      assert.deepEqual(stored, points.slice(0, stored.length), `cut ${cut}: an ordered prefix, nothing twice`);
      for (const point of points)
        assert.equal(told.get(point) === 'committed', stored.includes(point), `cut ${cut}: ${point} told truly`);
    }
  });
});
