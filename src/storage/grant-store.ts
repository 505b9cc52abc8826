/** Standing approvals (`approval_grants`): what "Always" and admins allowed, where, until when (ADR 0046). */

/** `conversation`: one workstream; `user`: every conversation the user owns; `channel`: conversations of one channel. */
export type GrantScope = 'conversation' | 'user' | 'channel';

export const GRANT_SCOPES: readonly GrantScope[] = ['conversation', 'user', 'channel'];

export interface ApprovalGrant {
  grantId: string;
  scope: GrantScope;
  /** The workstream id, the user id, or `<platform>:<channel id>`. */
  scopeKey: string;
  /** Approval-label glob (fnmatch, as tool policies): `bash`, `mcp__github__*`. */
  label: string;
  /** Glob the call's main argument must match (bash: the command); null = any arguments. */
  argsGlob: string | null;
  createdBy: string;
  approvalId: string | null;
  created: string;
  expires: string | null;
  revoked: string | null;
  revokedBy: string | null;
}

export type GrantInput = Pick<ApprovalGrant, 'scope' | 'scopeKey' | 'label' | 'createdBy'> &
  Partial<Pick<ApprovalGrant, 'argsGlob' | 'approvalId' | 'expires'>>;

/** Where a call is made: the keys a grant's scope is compared with. */
export interface GrantPlace {
  wsId: string;
  userId: string;
  /** `<platform>:<channel id>` keys of the conversation's channel (and its thread), when it is routed. */
  channels: readonly string[];
}

export interface GrantStore {
  create(input: GrantInput): Promise<ApprovalGrant>;
  get(grantId: string): Promise<ApprovalGrant | undefined>;
  /** Grants in force at `now` (not revoked, not expired) for the place, oldest first. */
  active(place: GrantPlace, now: string): Promise<ApprovalGrant[]>;
  /** Grants newest first: those touching one user (their user grants, their conversations' grants, those they made) when given; expired and revoked ones only with `all`. */
  list(filter: { userId?: string; all?: boolean; now: string }): Promise<ApprovalGrant[]>;
  /** Marks a grant revoked; false when missing or already revoked. */
  revoke(grantId: string, by: string): Promise<boolean>;
}
