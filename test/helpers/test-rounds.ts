/**
 * Round counts of the fault and crash tests: sized for CI by default, long with `SANDPIPER_TEST_LONG=1` (soak runs,
 * `node scripts/flaky.mjs`). The CI count still runs every kind of fault; the long one repeats them to find rare races.
 */
export function testRounds(ci: number, long: number): number {
  return process.env.SANDPIPER_TEST_LONG === '1' ? long : ci;
}
