/** Turns in flight (`turn_journal`): what a restart needs to settle a turn the process did not finish. */

export interface TurnJournalRow {
  turnId: string;
  wsId: string;
  /** The turn is itself the resumption of an interrupted one: it is never resumed again. */
  resumed: boolean;
  /** Text the model had streamed in the current call when the row was last written. */
  partialText: string;
  /** The restart already put the partial text into the history (a second restart must not add it again). */
  settled: boolean;
  started: string;
  updated: string;
}

/** One write-behind change of a turn's row; `begin` replaces every other row of the workstream (a newer turn supersedes them). */
export type TurnJournalChange =
  | { kind: 'begin'; turnId: string; wsId: string; resumed: boolean }
  | { kind: 'partial'; turnId: string; partialText: string }
  | { kind: 'end'; turnId: string };

export interface TurnJournalStore {
  /** Applies changes in order, in one transaction. A `partial` for a row that is gone changes nothing. */
  apply(changes: readonly TurnJournalChange[]): Promise<void>;
  /** Every row, oldest first (at start-up: the interrupted turns). */
  list(): Promise<TurnJournalRow[]>;
  /** The row of a workstream's interrupted turn, if any. */
  forWorkstream(wsId: string): Promise<TurnJournalRow | undefined>;
  /** Marks a row settled (its partial text is in the history). */
  markSettled(turnId: string): Promise<void>;
  remove(turnId: string): Promise<void>;
}
