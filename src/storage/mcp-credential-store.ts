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
  /** When the access token expires (epoch ms; tokens rows only), null when the server did not say. */
  expiresAt: number | null;
}

export interface McpCredentialStore {
  get(server: string, userId: string, kind: McpCredentialKind): Promise<McpCredentialRow | undefined>;
  /** Writes the row; `expiresAt` is kept as it was when left out (a rekey). */
  put(
    server: string,
    userId: string,
    kind: McpCredentialKind,
    secret: string,
    expiresAt?: number | null,
  ): Promise<void>;
  /** Removes one user's tokens (or every user's, without `userId`); returns how many rows went. */
  deleteTokens(server: string | undefined, userId: string | undefined): Promise<number>;
  list(filter: { server?: string; userId?: string; kind?: McpCredentialKind }): Promise<McpCredentialRow[]>;
}
