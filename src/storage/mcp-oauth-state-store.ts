/** Pending MCP OAuth authorizations (`mcp_oauth_states`): shared by every instance, so any of them takes the callback. */

/** How a pending authorization ended, as the waiting call reads it. */
export type McpOAuthOutcome = 'authorized' | 'declined' | 'cancelled' | 'failed';

export interface McpOAuthStateRow {
  /** SHA-256 of the `state` (base64url); the state itself is never stored. */
  stateHash: string;
  server: string;
  userId: string;
  /** The conversation (workstream) whose call asked; '' for an operator's login. */
  conversationId: string;
  /** The PKCE verifier, encrypted like the tokens; null until the authorization URL is built. */
  verifier: string | null;
  expiresAt: number;
  usedAt: number | null;
  outcome: McpOAuthOutcome | null;
}

export interface McpOAuthStateStore {
  /** Writes a new pending authorization (and deletes the rows that expired before `pruneBefore`). */
  create(
    row: Pick<McpOAuthStateRow, 'stateHash' | 'server' | 'userId' | 'conversationId' | 'expiresAt'>,
    pruneBefore: number,
  ): Promise<void>;
  setVerifier(stateHash: string, verifier: string): Promise<void>;
  /**
   * Takes the state for its callback: exactly one caller, on any instance, gets the row, and only while it is unused,
   * unexpired at `now`, unsettled and has its verifier; everyone else gets undefined.
   */
  consume(stateHash: string, now: number): Promise<McpOAuthStateRow | undefined>;
  /**
   * Records how it ended. With `unsettled`, only a row not settled yet (and, with its `userId`, only that user's).
   * Resolves whether a row changed.
   */
  settle(stateHash: string, outcome: McpOAuthOutcome, unsettled?: { userId?: string }): Promise<boolean>;
  get(stateHash: string): Promise<McpOAuthStateRow | undefined>;
}
