/** McpCredentialStore on knex (SQLite or PostgreSQL: every instance reads the same rows). */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import type { McpCredentialKind, McpCredentialRow, McpCredentialStore } from './mcp-credential-store.js';
import { text, toNullableNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

const TABLE = 'mcp_oauth_credentials';

function toRow(row: DbRow): McpCredentialRow {
  return {
    server: text(row.server),
    userId: text(row.user_id),
    kind: text(row.kind) as McpCredentialKind,
    secret: text(row.secret),
    updated: text(row.updated),
    expiresAt: toNullableNumber(row.expires_at),
  };
}

export class KnexMcpCredentialStore implements McpCredentialStore {
  constructor(private readonly knex: Knex) {}

  get(server: string, userId: string, kind: McpCredentialKind): Promise<McpCredentialRow | undefined> {
    return guard('mcpCredentials.get', async () => {
      const row = (await this.knex(TABLE).where({ server, user_id: userId, kind }).first()) as DbRow | undefined;
      return row ? toRow(row) : undefined;
    });
  }

  put(
    server: string,
    userId: string,
    kind: McpCredentialKind,
    secret: string,
    expiresAt?: number | null,
  ): Promise<void> {
    return guard('mcpCredentials.put', async () => {
      const expiry = expiresAt === undefined ? {} : { expires_at: expiresAt };
      await this.knex(TABLE)
        .insert({ server, user_id: userId, kind, secret, updated: isoNow(), ...expiry })
        .onConflict(['server', 'user_id', 'kind'])
        .merge(expiresAt === undefined ? ['secret', 'updated'] : ['secret', 'updated', 'expires_at']);
    });
  }

  deleteTokens(server: string | undefined, userId: string | undefined): Promise<number> {
    return guard('mcpCredentials.deleteTokens', async () => {
      let query = this.knex(TABLE).where({ kind: 'tokens' });
      if (server !== undefined) query = query.andWhere({ server });
      if (userId !== undefined) query = query.andWhere({ user_id: userId });
      return query.delete();
    });
  }

  list(filter: { server?: string; userId?: string; kind?: McpCredentialKind }): Promise<McpCredentialRow[]> {
    return guard('mcpCredentials.list', async () => {
      const where: Record<string, string> = {};
      if (filter.server !== undefined) where['server'] = filter.server;
      if (filter.userId !== undefined) where['user_id'] = filter.userId;
      if (filter.kind !== undefined) where['kind'] = filter.kind;
      const rows = (await this.knex(TABLE).where(where).orderBy(['server', 'user_id', 'kind'])) as DbRow[];
      return rows.map(toRow);
    });
  }
}
