/** Durable approval requests (`approvals`): any process can resolve a click after a restart. */

export type ApprovalState = 'pending' | 'approved' | 'denied' | 'executed' | 'cancelled';
/** `tools`: a batch of tool calls; `plan`: a plan review; `network`: a sandboxed process asks to reach a host. */
export type ApprovalKind = 'tools' | 'plan' | 'network';

export interface ApprovalRow {
  approvalId: string;
  wsId: string;
  turnId: string;
  kind: ApprovalKind;
  ownerUserId: string;
  /** Prepared items plus the raw calls needed to run them after a restart (JSON). */
  items: unknown;
  state: ApprovalState;
  always: boolean;
  feedback: string | null;
  decidedBy: string | null;
  /** Where the card was posted, so it can be edited later. */
  channelType: string | null;
  channelId: string | null;
  messageId: string | null;
  created: string;
  decided: string | null;
}

export interface ApprovalDecision {
  approved: boolean;
  always: boolean;
  feedback: string | null;
  decidedBy: string;
}

export interface ApprovalStore {
  create(
    row: Pick<ApprovalRow, 'approvalId' | 'wsId' | 'turnId' | 'kind' | 'ownerUserId' | 'items'>,
  ): Promise<ApprovalRow>;
  get(approvalId: string): Promise<ApprovalRow | undefined>;
  /**
   * Resolves a pending row. Idempotent: returns `{changed: false}` with the current row when it was
   * already decided (a second click), `undefined` when no such row.
   */
  resolve(approvalId: string, decision: ApprovalDecision): Promise<{ changed: boolean; row: ApprovalRow } | undefined>;
  /** Moves approved/denied → executed exactly once; true only for the caller that won. */
  claimExecution(approvalId: string): Promise<boolean>;
  /** Records where the card was posted. */
  setCard(approvalId: string, card: { channelType: string; channelId: string; messageId: string }): Promise<void>;
  /** Pending rows, of one workstream when given, oldest first. */
  listPending(wsId?: string): Promise<ApprovalRow[]>;
  /** The newest rows of one kind, newest first (`sandpiper policy network` lists the network decisions). */
  listByKind(kind: ApprovalKind, limit: number): Promise<ApprovalRow[]>;
  /** Decided or cancelled rows, newest first: of one user (owner or decider) when given (`sandpiper approvals history`). */
  listDecided(filter: { limit: number; userId?: string }): Promise<ApprovalRow[]>;
  /** Every row asked during one turn, oldest first. */
  listForTurn(turnId: string): Promise<ApprovalRow[]>;
  /** Marks a workstream's pending rows cancelled (turn cancelled, workstream closed). */
  cancelPending(wsId: string): Promise<number>;
}
