/**
 * Threads being opened (thread, route, first message). A message in a brand-new thread can arrive before its route
 * is stored; its lookup then waits for the openings in flight and looks again.
 */
import { InFlight } from '../shared/in-flight.js';

export class OpeningThreads {
  private readonly inFlight = new InFlight();

  /** Openings in flight. */
  get size(): number {
    return this.inFlight.size;
  }

  /** Tracks an opening until it settles; returns it. */
  track(work: Promise<void>): Promise<void> {
    return this.inFlight.track(work);
  }

  /** The route `lookup` finds; when none, again after the openings that were in flight before the first lookup. */
  async routeOf(lookup: () => Promise<string | undefined>): Promise<string | undefined> {
    // Taken before the lookup: an opening that finishes during it is gone from the set afterwards.
    const opening = this.inFlight.snapshot();
    const wsId = await lookup();
    if (wsId !== undefined || opening.length === 0) return wsId;
    await Promise.allSettled(opening);
    return lookup();
  }
}
