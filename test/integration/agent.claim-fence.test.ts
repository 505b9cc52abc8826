/**
 * Fencing of a message's claim (docs/design/cluster.md): an instance that looked dead to another may find, at the write
 * that stores the message, that its pending claim was taken over. That turn ends without a word in the conversation
 * (no answer, no "could not be saved" note), stores nothing, and leaves the message out of the history it keeps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AgentHarness } from './agent.harness.js';
import { ofType, record, startHarness, turnEnd } from './agent.harness.js';

describe('a message whose claim another instance took over', () => {
  let harness: AgentHarness;
  before(async () => {
    harness = await startHarness('openai');
  });
  after(async () => {
    await harness.close();
  });

  const claim = (messageId: string, claimedBy: string) => ({
    platform: 'slack',
    eventKey: `msg:C1:${messageId}`,
    channelId: 'C1',
    messageId,
    receivedAt: Date.now(),
    claimedBy,
  });

  it('ends its turn silently, stores nothing, and the next message is answered without it', async () => {
    const { runtime, owner, db, llm } = harness;
    const inbound = db.stores.inboundEvents;
    assert.equal(await inbound.claim(claim('1.1', 'this-instance')), true);
    assert.equal(await inbound.reclaim(claim('1.1', 'other-instance'), {}), true, 'taken over meanwhile');
    const ws = await runtime.manager.create({ ownerUserId: owner.userId, name: 'fence' });
    const events = record(ws);
    llm.enqueue({ text: 'an answer nobody may see' });
    await ws.send('the taken-over message', { receipt: claim('1.1', 'this-instance') });
    const ended = await turnEnd(events);
    assert.equal(ended.reason, 'superseded');
    assert.deepEqual(ofType(events, 'text-delta'), [], 'nothing of the answer is shown');
    assert.deepEqual(ofType(events, 'error'), [], 'no note about a failed save');
    assert.deepEqual(await db.stores.conversations.load(ws.wsId), [], 'the message is not stored here');

    llm.enqueue({ text: 'The next answer.' });
    await ws.send('a later message');
    assert.equal((await turnEnd(events, 2)).text, 'The next answer.');
    const lastRequest = JSON.stringify(llm.requests.at(-1)?.body);
    assert.match(lastRequest, /a later message/);
    assert.doesNotMatch(lastRequest, /the taken-over message/, 'the history holds only what was stored');
  });
});
