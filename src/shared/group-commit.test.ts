/**
 * The write-behind engine under a scheduler stepped by hand: a scripted run of hand-ins, scheduler moments and commit
 * completions, crashed between every pair of steps (the engine stopped, as a kill leaves it, or the write in flight
 * failing), then checked for what survived.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommit, type Schedule } from './group-commit.js';

type Outcome = 'pending' | 'committed' | 'failed';

/** A database of committed items and a log on the engine, as TickWriter is built: groups of at most `max`. */
class Harness {
  readonly db: string[] = [];
  readonly outcomes = new Map<string, Outcome>();
  readonly moments: Array<() => void> = [];
  private queue: Array<{ item: string; done: (ok: boolean) => void }> = [];
  private inFlight: { group: string[]; finish: (ok: boolean) => void } | undefined;
  readonly engine: GroupCommit;

  constructor(private readonly max = 2) {
    const schedule: Schedule = (start) => this.moments.push(start);
    const source = { hasPending: () => this.queue.length > 0, commitNext: () => this.commitNext() };
    this.engine = new GroupCommit(source, { schedule });
  }

  hand(item: string): void {
    this.outcomes.set(item, 'pending');
    this.queue.push({ item, done: (ok) => this.outcomes.set(item, ok ? 'committed' : 'failed') });
    this.engine.kick();
  }

  /** Runs the next scheduler moment; false when there is none. */
  moment(): boolean {
    const start = this.moments.shift();
    start?.();
    return start !== undefined;
  }

  /** Ends the write in flight (`ok`: committed as a whole; else rolled back as a whole); false when none runs. */
  async finish(ok: boolean): Promise<boolean> {
    const flight = this.inFlight;
    if (flight === undefined) return false;
    flight.finish(ok);
    // Lets the engine see the end and schedule the next group.
    for (let i = 0; i < 10; i++) await Promise.resolve();
    return true;
  }

  private commitNext(): Promise<void> {
    const group = this.queue.splice(0, this.max);
    return new Promise<void>((resolve) => {
      this.inFlight = {
        group: group.map((entry) => entry.item),
        finish: (ok) => {
          this.inFlight = undefined;
          if (ok) this.db.push(...group.map((entry) => entry.item));
          for (const entry of group) entry.done(ok);
          resolve();
        },
      };
    });
  }
}

type Step = { hand: string } | 'moment' | 'finish';
const SCRIPT: Step[] = [
  { hand: 'a' },
  { hand: 'b' },
  'moment',
  { hand: 'c' },
  { hand: 'd' },
  { hand: 'e' },
  'finish',
  'moment',
  { hand: 'f' },
  'finish',
  'moment',
  'finish',
  'moment',
  'finish',
];
const HANDED = ['a', 'b', 'c', 'd', 'e', 'f'];

async function play(harness: Harness, steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    if (step === 'moment') harness.moment();
    else if (step === 'finish') await harness.finish(true);
    else harness.hand(step.hand);
  }
}

/** What must hold after any crash: the database holds a prefix of the hand-in order, each item once, and no caller was told "committed" for an item that is not stored. */
function assertSurvivors(harness: Harness, where: string): void {
  const prefix = HANDED.slice(0, harness.db.length);
  assert.deepEqual(harness.db, prefix, `${where}: committed in hand-in order, nothing twice`);
  for (const [item, outcome] of harness.outcomes) {
    assert.equal(outcome === 'committed', harness.db.includes(item), `${where}: ${item} is ${outcome}`);
  }
}

describe('GroupCommit', () => {
  it('commits everything in order, in groups, with no timer: only the scheduler moments and the commits move it', async () => {
    const harness = new Harness();
    await play(harness, SCRIPT);
    assert.deepEqual(harness.db, HANDED);
    assert.ok([...harness.outcomes.values()].every((outcome) => outcome === 'committed'));
    assert.equal(harness.moments.length, 0);
  });

  it('a kill between any two steps leaves an ordered prefix, and every caller told the truth', async () => {
    for (let cut = 0; cut <= SCRIPT.length; cut++) {
      const harness = new Harness();
      await play(harness, SCRIPT.slice(0, cut));
      // The kill: no group starts any more; the write in flight is lost with the process (never told committed).
      harness.engine.stop();
      while (harness.moment());
      assertSurvivors(harness, `killed after step ${cut}`);
      const barrier = harness.engine.committed();
      await harness.finish(false);
      await barrier;
      assertSurvivors(harness, `killed after step ${cut}, its write lost`);
    }
  });

  it('a write failing between any two steps fails only its own group; the rest commits after it, in order', async () => {
    for (let cut = 0; cut <= SCRIPT.length; cut++) {
      const harness = new Harness();
      await play(harness, SCRIPT.slice(0, cut));
      const failed = await harness.finish(false);
      await play(harness, SCRIPT.slice(cut));
      // What is still pending goes with the barrier.
      const barrier = harness.engine.committed();
      while (harness.moment() || (await harness.finish(true)));
      await barrier;
      const lost = [...harness.outcomes].filter(([, outcome]) => outcome === 'failed').map(([item]) => item);
      assert.equal(lost.length > 0, failed, `cut ${cut}: a failure is reported to its callers`);
      assert.deepEqual(
        harness.db,
        HANDED.filter((item) => !lost.includes(item)),
        `cut ${cut}: the others committed in order`,
      );
      assert.ok(
        [...harness.outcomes.values()].every((outcome) => outcome !== 'pending'),
        `cut ${cut}: every caller learnt its outcome`,
      );
    }
  });

  it('committed() is a barrier: it starts a group itself and resolves only once the work handed in before it is committed', async () => {
    const harness = new Harness(10);
    harness.hand('a');
    let passed = false;
    const barrier = harness.engine.committed().then(() => (passed = true));
    await Promise.resolve();
    assert.equal(passed, false);
    harness.hand('b');
    await harness.finish(true);
    assert.deepEqual(harness.db, ['a']);
    while (harness.moment() || (await harness.finish(true)));
    await barrier;
    assert.equal(passed, true);
    assert.deepEqual(harness.db, ['a', 'b']);
  });
});
