/** Circuit breaker thresholds, cooldown escalation, half-open probes and decay. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CircuitBreaker } from './circuit-breaker.js';

function breakerAt(start = 0): { breaker: CircuitBreaker; advance(ms: number): void } {
  let now = start;
  const breaker = new CircuitBreaker({ now: () => now, jitter: () => 0.5 });
  return { breaker, advance: (ms) => void (now += ms) };
}

describe('CircuitBreaker', () => {
  it('stays closed after two failures and opens on the third', () => {
    const { breaker } = breakerAt();
    breaker.recordFailure('a');
    breaker.recordFailure('a');
    assert.equal(breaker.isOpen('a'), false);
    breaker.recordFailure('a');
    assert.equal(breaker.isOpen('a'), true);
    const gate = breaker.gate('a');
    assert.equal(gate.isAllowed, false);
  });

  it('uses a 30 s cooldown plus up to 10 % jitter, then lets a half-open probe through', () => {
    const { breaker, advance } = breakerAt();
    for (let i = 0; i < 3; i += 1) breaker.recordFailure('a');
    assert.equal(breaker.openUntil('a'), 30_000 + 1_500);
    advance(31_499);
    assert.equal(breaker.gate('a').isAllowed, false);
    advance(1);
    assert.deepEqual(breaker.gate('a'), { isAllowed: true, isProbe: true });
    assert.equal(breaker.openUntil('a'), undefined, 'the deadline is removed when half-open');
  });

  it('re-opens on the first failed probe with a doubled cooldown', () => {
    const { breaker, advance } = breakerAt();
    for (let i = 0; i < 3; i += 1) breaker.recordFailure('a');
    advance(40_000);
    breaker.gate('a');
    breaker.recordFailure('a');
    assert.equal(breaker.openUntil('a'), 40_000 + 60_000 + 3_000);
  });

  it('caps the cooldown at 300 s (plus jitter)', () => {
    const { breaker, advance } = breakerAt();
    for (let trip = 0; trip < 8; trip += 1) {
      for (let i = 0; i < 3; i += 1) breaker.recordFailure('a');
      advance(1_000_000);
      breaker.gate('a');
    }
    for (let i = 0; i < 3; i += 1) breaker.recordFailure('a');
    const until = breaker.openUntil('a') ?? 0;
    assert.ok(until - 8_000_000 <= 300_000 * 1.1);
  });

  it('does not extend an open deadline with further failures', () => {
    const { breaker } = breakerAt();
    for (let i = 0; i < 3; i += 1) breaker.recordFailure('a');
    const first = breaker.openUntil('a');
    breaker.recordFailure('a');
    assert.equal(breaker.openUntil('a'), first);
  });

  it('closes on success and decays the trip count one step at a time', () => {
    const { breaker, advance } = breakerAt();
    for (let trip = 0; trip < 3; trip += 1) {
      for (let i = 0; i < 3; i += 1) breaker.recordFailure('a');
      advance(1_000_000);
      breaker.gate('a');
    }
    assert.equal(breaker.trips('a'), 3);
    breaker.recordSuccess('a');
    assert.equal(breaker.failures('a'), 0);
    assert.equal(breaker.isOpen('a'), false);
    assert.equal(breaker.trips('a'), 2);
    breaker.recordSuccess('a');
    breaker.recordSuccess('a');
    assert.equal(breaker.trips('a'), 0);
  });

  it('keeps servers independent and forgets everything on clear', () => {
    const { breaker } = breakerAt();
    for (let i = 0; i < 3; i += 1) breaker.recordFailure('a');
    assert.equal(breaker.isOpen('b'), false);
    breaker.clear('a');
    assert.deepEqual([breaker.isOpen('a'), breaker.failures('a'), breaker.trips('a')], [false, 0, 0]);
  });
});
