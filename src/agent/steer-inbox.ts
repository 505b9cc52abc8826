/**
 * Steer (docs/design/durability.md, "Steer"): guidance a person adds to the running turn. A steer is stored as a
 * waiting message when it is accepted (so a crash before the turn's next model call runs it after the restart as an
 * ordinary message), held here until that call, and then enters the history as a user message marked `[steer]`,
 * in one write with the removal of its waiting row. A steer the turn never read (it answered, was stopped or failed
 * first) becomes the next queued message.
 */
import type { UserMessage } from './messages.js';
import type { TurnContext } from './turn/turn-types.js';

/** The marker a steer carries in the history (the model reads it as guidance added while it worked). */
export const STEER_MARKER = '[steer]';

/** A steer accepted while a turn ran; `id` is its waiting row's turn id. */
export interface PendingSteer {
  id: string;
  content: string;
}

/** What `Workstream.steer` did: joined the running turn, or (no turn running) was sent as an ordinary message. */
export type SteerOutcome =
  | { status: 'steered' }
  | { status: 'sent-as-message'; queued: boolean }
  | { status: 'refused'; reason: 'queue-full'; limit: number };

/** The text stored and shown to the model for a steer. */
export function steerContent(text: string): string {
  return `${STEER_MARKER} ${text.trim()}`;
}

/** The steers of one workstream not yet read by its running turn, in the order they were accepted. */
export class SteerInbox {
  private pending: PendingSteer[] = [];

  get size(): number {
    return this.pending.length;
  }

  add(steer: PendingSteer): void {
    this.pending.push(steer);
  }

  /** Every pending steer, oldest first; the inbox is empty afterwards. */
  take(): PendingSteer[] {
    return this.pending.splice(0);
  }
}

/**
 * Before a model call: the steers taken from the inbox join the history (each a user message, committed with the
 * removal of its waiting row through the turn's ordered writes). Called only when there are some: an `await` with
 * nothing to do would move the turn's next write-behind change (its state) out of the moment it shares with the
 * *accepted* touch (one UPDATE, ADR 0026).
 */
export async function joinSteers(
  ctx: Pick<TurnContext, 'history' | 'host'>,
  steers: readonly PendingSteer[],
): Promise<void> {
  for (const steer of steers) {
    const message: UserMessage = { role: 'user', content: steer.content };
    ctx.history.push(message);
    await (ctx.host.joinSteer ? ctx.host.joinSteer(message, steer.id) : ctx.host.persist(message));
  }
}
