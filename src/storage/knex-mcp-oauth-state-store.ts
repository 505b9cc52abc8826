/** McpOAuthStateStore on knex (SQLite or PostgreSQL); the consume is one conditional UPDATE, so one caller wins. */
import type { Knex } from 'knex';
import type { McpOAuthOutcome, McpOAuthStateRow, McpOAuthStateStore } from './mcp-oauth-state-store.js';
import { nullableText, text, toNullableNumber, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

const TABLE = 'mcp_oauth_states';

function toRow(row: DbRow): McpOAuthStateRow {
  return {
    stateHash: text(row.state_hash),
    server: text(row.server),
    userId: text(row.user_id),
    conversationId: text(row.conversation_id),
    verifier: nullableText(row.verifier),
    expiresAt: toNumber(row.expires_at),
    usedAt: toNullableNumber(row.used_at),
    outcome: nullableText(row.outcome) as McpOAuthOutcome | null,
  };
}

export class KnexMcpOAuthStateStore implements McpOAuthStateStore {
  constructor(private readonly knex: Knex) {}

  create(
    row: Pick<McpOAuthStateRow, 'stateHash' | 'server' | 'userId' | 'conversationId' | 'expiresAt'>,
    pruneBefore: number,
  ): Promise<void> {
    return guard('mcpOAuthStates.create', async () => {
      await this.knex(TABLE).where('expires_at', '<', pruneBefore).delete();
      await this.knex(TABLE).insert({
        state_hash: row.stateHash,
        server: row.server,
        user_id: row.userId,
        conversation_id: row.conversationId,
        expires_at: row.expiresAt,
      });
    });
  }

  setVerifier(stateHash: string, verifier: string): Promise<void> {
    return guard('mcpOAuthStates.setVerifier', async () => {
      await this.knex(TABLE).where({ state_hash: stateHash }).whereNull('used_at').update({ verifier });
    });
  }

  consume(stateHash: string, now: number): Promise<McpOAuthStateRow | undefined> {
    return guard('mcpOAuthStates.consume', async () => {
      const taken = await this.knex(TABLE)
        .where({ state_hash: stateHash })
        .whereNull('used_at')
        .whereNull('outcome')
        .whereNotNull('verifier')
        .andWhere('expires_at', '>', now)
        .update({ used_at: now });
      if (taken !== 1) return undefined;
      const row = (await this.knex(TABLE).where({ state_hash: stateHash }).first()) as DbRow | undefined;
      return row ? toRow(row) : undefined;
    });
  }

  settle(stateHash: string, outcome: McpOAuthOutcome, unsettled?: { userId?: string }): Promise<boolean> {
    return guard('mcpOAuthStates.settle', async () => {
      let query = this.knex(TABLE).where({ state_hash: stateHash });
      if (unsettled !== undefined) query = query.whereNull('outcome');
      if (unsettled?.userId !== undefined) query = query.andWhere({ user_id: unsettled.userId });
      return (await query.update({ outcome })) > 0;
    });
  }

  get(stateHash: string): Promise<McpOAuthStateRow | undefined> {
    return guard('mcpOAuthStates.get', async () => {
      const row = (await this.knex(TABLE).where({ state_hash: stateHash }).first()) as DbRow | undefined;
      return row ? toRow(row) : undefined;
    });
  }
}
