/** Encrypted OAuth credentials of MCP servers: per-user tokens and per-server client registrations. */

/** `tokens`: one user's tokens for one server; `client`: the server's client registration (user id ''). */
export type McpCredentialKind = 'tokens' | 'client';

export interface McpCredentialRow {
  server: string;
  userId: string;
  kind: McpCredentialKind;
  /** Ciphertext only (the store never sees a raw token). */
  secret: string;
  updated: string;
}

export interface McpCredentialStore {
  get(server: string, userId: string, kind: McpCredentialKind): Promise<McpCredentialRow | undefined>;
  put(server: string, userId: string, kind: McpCredentialKind, secret: string): Promise<void>;
  /** Removes one user's tokens (or every user's, without `userId`); returns how many rows went. */
  deleteTokens(server: string | undefined, userId: string | undefined): Promise<number>;
  list(filter: { server?: string; userId?: string; kind?: McpCredentialKind }): Promise<McpCredentialRow[]>;
}
