/**
 * The turn log's entries outside a turn's commit points: a streaming answer costs a few writes, not one per token; a
 * waiting message is stored when accepted and goes with its turn's *accepted* write; nothing is lost at flush.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { createSilentLogger } from '../shared/logger.js';
import type { TurnJournalChange, TurnJournalStore } from '../storage/turn-journal-store.js';
import { TurnJournal } from './turn-journal.js';

describe('TurnJournal', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
  });
  after(async () => {
    await db.close();
  });

  /** The real store, counting the batches it is asked to write. */
  function counting(): { store: Pick<TurnJournalStore, 'apply'>; batches: TurnJournalChange[][] } {
    const batches: TurnJournalChange[][] = [];
    return {
      batches,
      store: { apply: (changes) => (batches.push([...changes]), db.stores.turnJournal.apply(changes)) },
    };
  }

  const begin = (wsId: string, turnId: string, resumed = false): Promise<void> =>
    db.stores.turnJournal.apply([{ kind: 'begin', wsId, turnId, resumed }]);

  it('writes a streaming text in few writes, keeping the latest text; the end removes the row', async () => {
    const { store, batches } = counting();
    const journal = new TurnJournal({ store, logger: createSilentLogger(), intervalMs: 60_000 });
    await begin('ws-a', 'turn-a');
    let text = '';
    for (let index = 0; index < 500; index++) {
      text += `token${index} `;
      journal.partial('ws-a', 'turn-a', text);
    }
    await journal.flush();
    assert.ok(batches.length <= 1, `500 tokens took ${batches.length} writes`);
    const row = await db.stores.turnJournal.forWorkstream('ws-a');
    assert.equal(row?.partialText, text);
    assert.equal(row?.resumed, false);
    await journal.end('ws-a', 'turn-a');
    assert.equal(await db.stores.turnJournal.forWorkstream('ws-a'), undefined);
  });

  it('drops the text not yet written of a turn that ended', async () => {
    const { store, batches } = counting();
    const journal = new TurnJournal({ store, logger: createSilentLogger(), intervalMs: 60_000 });
    journal.partial('ws-b', 'turn-b', 'quick answer');
    await journal.end('ws-b', 'turn-b');
    await journal.flush();
    assert.deepEqual(batches, [[{ kind: 'end', turnId: 'turn-b', wsId: 'ws-b' }]]);
  });

  it('a new turn of a workstream replaces the row of the one before it (a resumed turn supersedes the interrupted one)', async () => {
    const journal = new TurnJournal({ store: db.stores.turnJournal, logger: createSilentLogger() });
    await begin('ws-c', 'turn-old');
    journal.partial('ws-c', 'turn-old', 'half an answer');
    await journal.flush();
    await begin('ws-c', 'turn-new', true);
    const rows = (await db.stores.turnJournal.list()).filter((row) => row.wsId === 'ws-c');
    assert.deepEqual(
      rows.map((row) => [row.turnId, row.resumed, row.partialText]),
      [['turn-new', true, '']],
    );
  });

  it('logs a failed write and keeps going', async () => {
    let calls = 0;
    const journal = new TurnJournal({
      store: { apply: () => (calls++, Promise.reject(new Error('disk full'))) },
      logger: createSilentLogger(),
    });
    await journal.end('ws-d', 'turn-d');
    journal.partial('ws-d', 'turn-d', 'some text');
    await journal.flush();
    assert.equal(calls, 2);
  });

  it('keeps a waiting message until its turn is accepted, in acceptance order; a closed workstream keeps none', async () => {
    const journal = new TurnJournal({ store: db.stores.turnJournal, logger: createSilentLogger() });
    await begin('ws-q', 'turn-running');
    void journal.queue('ws-q', 'turn-second', JSON.stringify('second'), 'user');
    void journal.queue('ws-q', 'turn-third', JSON.stringify([{ type: 'text', text: 'third' }]), 'watch');
    await journal.flush();
    const waiting = await db.stores.turnJournal.queued('ws-q');
    assert.deepEqual(
      waiting.map((row) => [row.turnId, JSON.parse(row.content) as unknown, row.origin]),
      [
        ['turn-second', 'second', 'user'],
        ['turn-third', [{ type: 'text', text: 'third' }], 'watch'],
      ],
    );
    assert.ok(waiting[0] !== undefined && waiting[1] !== undefined && waiting[0].seq < waiting[1].seq);
    assert.deepEqual(await db.stores.turnJournal.queuedWorkstreams(), ['ws-q']);
    await db.stores.turnJournal.apply([
      {
        kind: 'begin',
        wsId: 'ws-q',
        turnId: 'turn-second',
        resumed: false,
        waited: true,
        message: { role: 'user', content: 'second' },
      },
    ]);
    assert.deepEqual(
      (await db.stores.turnJournal.queued('ws-q')).map((row) => row.turnId),
      ['turn-third'],
      'its accepted write removed it',
    );
    assert.deepEqual(
      (await db.stores.conversations.load('ws-q')).map((message) => message.content),
      ['second'],
      'and stored the message',
    );
    void journal.queue('ws-q', 'turn-fourth', JSON.stringify('fourth'), 'user');
    void journal.drop('ws-q');
    await journal.flush();
    assert.deepEqual(await db.stores.turnJournal.queued('ws-q'), [], 'a closed workstream keeps none');
    assert.deepEqual(await db.stores.turnJournal.queuedWorkstreams(), []);
  });
});
