/** Watches (`watches`): periodic shell polls that report back into a workstream. */

export interface WatchRow {
  watchId: string;
  wsId: string;
  nodeId: string;
  name: string;
  command: string;
  intervalSecs: number;
  stopOn: string | null;
  maxPolls: number;
  pollCount: number;
  lastOutput: string | null;
  lastExitCode: number | null;
  lastPoll: string | null;
  nextPoll: string | null;
  active: boolean;
  createdBy: string;
  created: string;
  updated: string;
}

export type WatchPatch = Partial<
  Pick<WatchRow, 'name' | 'pollCount' | 'lastOutput' | 'lastExitCode' | 'lastPoll' | 'nextPoll' | 'active'>
>;

export interface WatchStore {
  create(
    input: Pick<
      WatchRow,
      'watchId' | 'wsId' | 'name' | 'command' | 'intervalSecs' | 'stopOn' | 'maxPolls' | 'nextPoll'
    > & { createdBy?: string; nodeId?: string },
  ): Promise<WatchRow>;
  get(watchId: string): Promise<WatchRow | undefined>;
  /** Active watches of a workstream, newest first. */
  listForWorkstream(wsId: string): Promise<WatchRow[]>;
  /** Active watches whose next_poll ≤ now. */
  listDue(nowIso: string): Promise<WatchRow[]>;
  /**
   * Takes a due watch for one poll: moves `next_poll` from `expectedNextPoll` to `leaseUntil` only when it still
   * holds that value on an active row. True for exactly one caller (processes and overlapping ticks never poll twice);
   * a poller that dies leaves the lease to expire, and the watch is due again.
   */
  claim(watchId: string, expectedNextPoll: string, leaseUntil: string): Promise<boolean>;
  update(watchId: string, patch: WatchPatch): Promise<boolean>;
  delete(watchId: string): Promise<boolean>;
}
