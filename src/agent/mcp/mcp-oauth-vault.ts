/** Per-user OAuth tokens and per-server client registrations, encrypted before they reach the credential store. */
import type { McpCredentialKind, McpCredentialStore } from '../../storage/mcp-credential-store.js';
import type { TokenCipher } from './mcp-token-cipher.js';

/** The client registration row of a server uses this user id. */
const CLIENT_USER = '';

export interface McpAuthorizationEntry {
  server: string;
  userId: string;
  updated: string;
}

export class McpOAuthVault {
  constructor(
    private readonly store: McpCredentialStore,
    private readonly cipher: TokenCipher,
  ) {}

  tokens(server: string, userId: string): Promise<Record<string, unknown> | undefined> {
    return this.read(server, userId, 'tokens');
  }

  /** Stores the tokens encrypted, with the access token's expiry (from `expires_in`) in the clear beside them. */
  saveTokens(
    server: string,
    userId: string,
    tokens: { expires_in?: number | undefined },
    now: number = Date.now(),
  ): Promise<void> {
    const expiresAt = typeof tokens.expires_in === 'number' ? now + tokens.expires_in * 1000 : null;
    return this.store.put(server, userId, 'tokens', this.cipher.encrypt(JSON.stringify(tokens)), expiresAt);
  }

  /** Whether the user's stored access token expires before `deadline` and a refresh token could renew it. */
  async needsRefresh(server: string, userId: string, deadline: number): Promise<boolean> {
    const row = await this.store.get(server, userId, 'tokens');
    if (!row || row.expiresAt === null || row.expiresAt > deadline) return false;
    const tokens = JSON.parse(this.cipher.decrypt(row.secret)) as { refresh_token?: unknown };
    return typeof tokens.refresh_token === 'string';
  }

  /** Encrypts a value that must not sit in the database in the clear (a PKCE verifier). */
  seal(plain: string): string {
    return this.cipher.encrypt(plain);
  }

  open(sealed: string): string {
    return this.cipher.decrypt(sealed);
  }

  client(server: string): Promise<Record<string, unknown> | undefined> {
    return this.read(server, CLIENT_USER, 'client');
  }

  saveClient(server: string, client: object): Promise<void> {
    return this.store.put(server, CLIENT_USER, 'client', this.cipher.encrypt(JSON.stringify(client)));
  }

  /** Forgets tokens: one user's on one server, one user's everywhere, or everyone's on one server. */
  revoke(server: string | undefined, userId: string | undefined): Promise<number> {
    return this.store.deleteTokens(server, userId);
  }

  async list(filter: { server?: string; userId?: string }): Promise<McpAuthorizationEntry[]> {
    const rows = await this.store.list({ ...filter, kind: 'tokens' });
    return rows.map((row) => ({ server: row.server, userId: row.userId, updated: row.updated }));
  }

  /** Re-encrypts every row written with an earlier key under the current one; returns how many changed. */
  async rekey(): Promise<number> {
    let changed = 0;
    for (const row of await this.store.list({})) {
      if (this.cipher.isCurrent(row.secret)) continue;
      await this.store.put(row.server, row.userId, row.kind, this.cipher.encrypt(this.cipher.decrypt(row.secret)));
      changed += 1;
    }
    return changed;
  }

  private async read(
    server: string,
    userId: string,
    kind: McpCredentialKind,
  ): Promise<Record<string, unknown> | undefined> {
    const row = await this.store.get(server, userId, kind);
    if (!row) return undefined;
    return JSON.parse(this.cipher.decrypt(row.secret)) as Record<string, unknown>;
  }
}
