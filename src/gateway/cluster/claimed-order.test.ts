/** Per-thread order of claimed messages across instances: what a later message waits for before it is admitted. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { createSilentLogger } from '../../shared/logger.js';
import { ClaimedOrder } from './claimed-order.js';

const claim = {
  platform: 'slack',
  eventKey: 'msg:C1:100.000002:100.000003',
  channelId: 'C1:100.000002',
  messageId: '100.000003',
  receivedAt: 0,
  claimedBy: 'instance-b',
};

/** An order over an in-memory ledger: `pending` is the earlier message still claimed elsewhere (or undefined). */
function orderWith(
  state: { pending: string | undefined; taken: string[]; handedHere: string[] },
  onCheck: () => void = () => undefined,
): ClaimedOrder {
  return new ClaimedOrder({
    store: {
      earlierPending: () => {
        onCheck();
        return Promise.resolve(state.pending);
      },
    },
    deadAfterMs: 10_000,
    maxWaitMs: 15_000,
    takeHandedHere: () => {
      state.taken.push(...state.handedHere.splice(0));
      return Promise.resolve();
    },
    logger: createSilentLogger(),
  });
}

describe('ClaimedOrder', () => {
  it('takes an earlier message already handed here before admitting a later one, though nothing is pending', async () => {
    // The earlier message's claim was settled by its handoff row between the later one's claim and the check.
    const state = { pending: undefined, taken: [] as string[], handedHere: ['q-first'] };
    await orderWith(state).earlierSettled(claim);
    assert.deepEqual(state.taken, ['q-first'], 'the handed message was taken before the later one was admitted');
  });

  it('waits while an earlier message is pending elsewhere, then takes it once it was handed here', async () => {
    const state = { pending: 'q-first' as string | undefined, taken: [] as string[], handedHere: [] as string[] };
    let checks = 0;
    const order = orderWith(state, () => (checks += 1));
    let admitted = false;
    const settled = order.earlierSettled(claim).then(() => (admitted = true));
    await waitFor(() => checks >= 1, 'the first check');
    assert.equal(admitted, false, 'the later message waits');
    // A wake re-checks; one sent before the wait began would be lost, so each poll sends one until a check ran.
    await waitFor(() => (order.wake(), checks >= 2), 'a re-check on a wake');
    assert.equal(admitted, false, 'still pending: still waiting');
    state.pending = undefined;
    state.handedHere.push('q-first');
    await waitFor(() => (order.wake(), admitted), 'the later message admitted');
    await settled;
    assert.deepEqual(state.taken, ['q-first']);
  });

  it('admits the later message when the instance stops, without waiting for the earlier one', async () => {
    const state = { pending: 'q-first' as string | undefined, taken: [] as string[], handedHere: [] as string[] };
    const order = orderWith(state);
    const settled = order.earlierSettled(claim);
    order.stop();
    await settled;
    assert.deepEqual(state.taken, []);
  });
});
