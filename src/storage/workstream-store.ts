/** Workstreams (`workstreams`): one row per conversation, with its settings and lease. */
import type { UsageDelta } from './usage-store.js';

export type WorkstreamState = 'idle' | 'thinking' | 'running' | 'attention' | 'error' | 'closed';

export interface WorkstreamRow {
  wsId: string;
  userId: string;
  name: string;
  title: string;
  state: WorkstreamState;
  modelAlias: string;
  /** Approval labels approved "always" for this workstream. */
  autoApproveTools: string[];
  inputTokens: number;
  outputTokens: number;
  /** Instance that currently runs it (scale-out lease), '' when none. */
  nodeId: string;
  created: string;
  updated: string;
}

export type WorkstreamPatch = Partial<
  Pick<WorkstreamRow, 'name' | 'title' | 'state' | 'modelAlias' | 'autoApproveTools' | 'nodeId'>
>;

/** One workstream's share of a batched write (write-behind of the agent): state, token deltas, activity time. */
export interface WorkstreamChange {
  wsId: string;
  state?: WorkstreamState;
  /** Added to the counters (not replacing them). */
  inputTokens?: number;
  outputTokens?: number;
  /** The same tokens per day and model, added to `usage_daily` in the same transaction. */
  usage?: UsageDelta[];
  /** ISO time of the latest activity (a message was stored); becomes `updated`. */
  touched?: string;
}

/** The platform thread a new workstream is routed from (`channel_routes`). */
export interface WorkstreamRoute {
  channelType: string;
  channelId: string;
}

export interface WorkstreamStore {
  /**
   * Inserts a new row; throws StorageError CONFLICT when the id exists. With `route`, the thread's route to it (owned
   * by the row's user) is inserted in the same transaction, so there is never a workstream without its thread or a
   * route to a missing workstream; an existing route of that thread is kept.
   */
  create(
    row: Pick<WorkstreamRow, 'wsId' | 'userId' | 'name' | 'modelAlias'>,
    options?: { route?: WorkstreamRoute },
  ): Promise<WorkstreamRow>;
  get(wsId: string): Promise<WorkstreamRow | undefined>;
  /** Applies a patch and bumps `updated`; false when the row is missing. */
  update(wsId: string, patch: WorkstreamPatch): Promise<boolean>;
  /** Adds to the token counters atomically. */
  addUsage(wsId: string, inputTokens: number, outputTokens: number): Promise<void>;
  /** Applies many changes in one transaction (one UPDATE per workstream); missing rows are skipped. */
  applyChanges(changes: readonly WorkstreamChange[]): Promise<void>;
  /** Rows of a user (or all when omitted), newest `updated` first. */
  list(filter?: { userId?: string; state?: WorkstreamState }): Promise<WorkstreamRow[]>;
  /** Deletes the row and its conversation. */
  delete(wsId: string): Promise<boolean>;
}
