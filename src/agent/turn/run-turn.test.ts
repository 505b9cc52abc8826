/** The turn's answer gate: nothing of the answer is shown before the message is stored and the turn is journalled. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFakeTurnContext } from '../../../test/fakes/fake-turn-context.js';
import { runTurn } from './run-turn.js';

describe('runTurn', () => {
  it('holds the answer until the turn is recorded in the journal, then shows it', async () => {
    const ctx = createFakeTurnContext();
    let record: () => void = () => undefined;
    const recorded = new Promise<void>((resolve) => (record = resolve));
    ctx.host.turnRecorded = () => recorded;
    ctx.provider.enqueue({ parts: [{ type: 'text-delta', text: 'Answer.' }, { type: 'finish', finishReason: 'stop' }] });
    const turn = runTurn(ctx, { kind: 'user', message: { role: 'user', content: 'hi' } });
    for (let spins = 0; spins < 50; spins++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ctx.provider.requests.length, 1, 'the model request went out meanwhile');
    assert.deepEqual(ctx.host.events.filter((event) => event.type === 'text-delta'), [], 'a crash now could run the message again: nothing is shown');
    record();
    const outcome = await turn;
    assert.deepEqual(outcome, { text: 'Answer.', reason: 'done' });
    assert.deepEqual(ctx.host.events.filter((event) => event.type === 'text-delta'), [{ type: 'text-delta', text: 'Answer.' }]);
  });
});
