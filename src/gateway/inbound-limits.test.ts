import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InboundLimits } from './inbound-limits.js';

describe('InboundLimits', () => {
  const make = (clock: { now: number }) =>
    new InboundLimits({ maxChars: 10, limit: 3, windowMs: 60_000, now: () => clock.now });

  it('refuses a message over the cap without using a rate slot', () => {
    const limits = make({ now: 0 });
    assert.deepEqual(limits.admit('u', 'x'.repeat(11)), {
      admitted: false,
      notice: 'Message too long (11 chars). Please keep messages under 10 characters.',
    });
    for (let i = 0; i < 3; i += 1) assert.equal(limits.admit('u', 'ok').admitted, true);
  });

  it('counts characters, not UTF-16 units', () => {
    assert.equal(make({ now: 0 }).admit('u', '😀'.repeat(10)).admitted, true);
  });

  it('gives one notice per burst, and another after a message was accepted again', () => {
    const clock = { now: 0 };
    const limits = make(clock);
    for (let i = 0; i < 3; i += 1) assert.equal(limits.admit('u', 'hi').admitted, true);
    assert.deepEqual(limits.admit('u', 'hi'), {
      admitted: false,
      notice: "You're sending messages too fast. Limit is 3 per 60 seconds.",
    });
    assert.deepEqual(limits.admit('u', 'hi'), { admitted: false, notice: undefined });
    assert.equal(limits.admit('other', 'hi').admitted, true, 'per user');
    clock.now = 60_000;
    assert.equal(limits.admit('u', 'hi').admitted, true, 'the window slid');
    limits.admit('u', 'hi');
    limits.admit('u', 'hi');
    const again = limits.admit('u', 'hi');
    assert.equal(again.admitted === false && again.notice !== undefined, true, 'a new burst gets a new notice');
  });
});
