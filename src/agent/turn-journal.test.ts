/** The turn journal's write-behind: a streaming answer costs a few batched writes, not one per token; nothing lost at flush. */
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
    return { batches, store: { apply: (changes) => (batches.push([...changes]), db.stores.turnJournal.apply(changes)) } };
  }

  it('writes the start at once and a streaming text in batches, keeping the latest text', async () => {
    const { store, batches } = counting();
    const journal = new TurnJournal({ store, logger: createSilentLogger(), intervalMs: 60_000 });
    journal.begin('ws-a', 'turn-a', false);
    let text = '';
    for (let index = 0; index < 500; index++) {
      text += `token${index} `;
      journal.partial('turn-a', text);
    }
    await journal.flush();
    assert.ok(batches.length <= 2, `500 tokens took ${batches.length} writes`);
    const row = await db.stores.turnJournal.forWorkstream('ws-a');
    assert.equal(row?.partialText, text);
    assert.equal(row?.resumed, false);
    journal.end('turn-a');
    await journal.flush();
    assert.equal(await db.stores.turnJournal.forWorkstream('ws-a'), undefined);
  });

  it('never writes a turn that began and ended within one batch', async () => {
    const { store, batches } = counting();
    const journal = new TurnJournal({ store, logger: createSilentLogger() });
    journal.begin('ws-b', 'turn-b', false);
    journal.partial('turn-b', 'quick answer');
    journal.end('turn-b');
    await journal.flush();
    assert.equal(batches.length, 0, 'no write at all');
    assert.equal(await db.stores.turnJournal.forWorkstream('ws-b'), undefined);
  });

  it('a new turn of a workstream replaces the row of the one before it (a resumed turn supersedes the interrupted one)', async () => {
    const journal = new TurnJournal({ store: db.stores.turnJournal, logger: createSilentLogger() });
    journal.begin('ws-c', 'turn-old', false);
    journal.partial('turn-old', 'half an answer');
    await journal.flush();
    journal.begin('ws-c', 'turn-new', true);
    await journal.flush();
    const rows = (await db.stores.turnJournal.list()).filter((row) => row.wsId === 'ws-c');
    assert.deepEqual(rows.map((row) => [row.turnId, row.resumed, row.partialText]), [['turn-new', true, '']]);
  });

  it('logs a failed write and keeps going', async () => {
    let calls = 0;
    const journal = new TurnJournal({ store: { apply: () => (calls++, Promise.reject(new Error('disk full'))) }, logger: createSilentLogger() });
    journal.begin('ws-d', 'turn-d', false);
    await journal.flush();
    journal.partial('turn-d', 'x');
    await journal.flush();
    assert.equal(calls, 2);
  });
  it('keeps a waiting message until its turn begins, in acceptance order; one started within the batch is never written', async () => {
    const { store, batches } = counting();
    const journal = new TurnJournal({ store, logger: createSilentLogger() });
    journal.begin('ws-q', 'turn-running', false);
    journal.queue('ws-q', 'turn-second', JSON.stringify('second'), 'user');
    journal.queue('ws-q', 'turn-third', JSON.stringify([{ type: 'text', text: 'third' }]), 'watch');
    journal.queue('ws-q', 'turn-quick', JSON.stringify('started at once'), 'user');
    journal.begin('ws-q', 'turn-quick', false);
    await journal.flush();
    assert.equal(batches.length, 1, 'one transaction for all of it');
    const waiting = await db.stores.turnJournal.queued('ws-q');
    assert.deepEqual(waiting.map((row) => [row.turnId, JSON.parse(row.content) as unknown, row.origin]), [
      ['turn-second', 'second', 'user'],
      ['turn-third', [{ type: 'text', text: 'third' }], 'watch'],
    ]);
    assert.ok(waiting[0] !== undefined && waiting[1] !== undefined && waiting[0].seq < waiting[1].seq);
    assert.deepEqual(await db.stores.turnJournal.queuedWorkstreams(), ['ws-q']);
    journal.begin('ws-q', 'turn-second', false);
    await journal.flush();
    assert.deepEqual((await db.stores.turnJournal.queued('ws-q')).map((row) => row.turnId), ['turn-third'], 'its begin removed it');
    journal.queue('ws-q', 'turn-fourth', JSON.stringify('fourth'), 'user');
    journal.drop('ws-q');
    await journal.flush();
    assert.deepEqual(await db.stores.turnJournal.queued('ws-q'), [], 'a closed workstream keeps none');
    assert.deepEqual(await db.stores.turnJournal.queuedWorkstreams(), []);
  });
});
