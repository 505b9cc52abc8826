/** McpServerStore on knex: MCP servers defined in the database. */
import type { Knex } from 'knex';
import { newHexId } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import type { McpServerInput, McpServerRow, McpServerStore } from './mcp-server-store.js';
import { definedOnly, fromDbBool, parseStringArray, parseStringRecord, text, toDbBool, type DbRow } from './rows.js';
import { conflictError, guard, isUniqueViolation } from './storage-errors.js';

function toServer(row: DbRow): McpServerRow {
  return {
    serverId: text(row.server_id),
    name: text(row.name),
    transport: row.transport === 'stdio' ? 'stdio' : 'streamable-http',
    command: text(row.command),
    args: parseStringArray(row.args),
    url: text(row.url),
    headers: parseStringRecord(row.headers),
    env: parseStringRecord(row.env),
    autoApprove: fromDbBool(row.auto_approve),
    enabled: fromDbBool(row.enabled),
    createdBy: text(row.created_by),
    created: text(row.created),
    updated: text(row.updated),
  };
}

function inputColumns(input: Partial<McpServerInput>): Record<string, unknown> {
  return definedOnly({
    name: input.name,
    transport: input.transport,
    command: input.command,
    args: input.args === undefined ? undefined : JSON.stringify(input.args),
    url: input.url,
    headers: input.headers === undefined ? undefined : JSON.stringify(input.headers),
    env: input.env === undefined ? undefined : JSON.stringify(input.env),
    auto_approve: input.autoApprove === undefined ? undefined : toDbBool(input.autoApprove),
    enabled: input.enabled === undefined ? undefined : toDbBool(input.enabled),
    created_by: input.createdBy,
  });
}

export class KnexMcpServerStore implements McpServerStore {
  constructor(private readonly knex: Knex) {}

  create(input: McpServerInput): Promise<McpServerRow | undefined> {
    return guard('mcpServers.create', async () => {
      const now = isoNow();
      const row = {
        server_id: newHexId(),
        command: '',
        args: '[]',
        url: '',
        headers: '{}',
        env: '{}',
        auto_approve: 0,
        enabled: 1,
        created_by: '',
        ...inputColumns(input),
        created: now,
        updated: now,
      };
      const inserted = await this.knex('mcp_servers').insert(row).onConflict('name').ignore().returning('server_id');
      return inserted.length > 0 ? toServer(row) : undefined;
    });
  }

  getByName(name: string): Promise<McpServerRow | undefined> {
    return guard('mcpServers.getByName', async () => {
      const row = (await this.knex('mcp_servers').where({ name }).first()) as DbRow | undefined;
      return row ? toServer(row) : undefined;
    });
  }

  update(serverId: string, patch: Partial<McpServerInput>): Promise<boolean> {
    return guard('mcpServers.update', async () => {
      try {
        const changed = await this.knex('mcp_servers')
          .where({ server_id: serverId })
          .update({ ...inputColumns(patch), updated: isoNow() });
        return changed > 0;
      } catch (error) {
        if (isUniqueViolation(error)) throw conflictError('an MCP server with this name exists', error);
        throw error;
      }
    });
  }

  delete(serverId: string): Promise<boolean> {
    return guard(
      'mcpServers.delete',
      async () => (await this.knex('mcp_servers').where({ server_id: serverId }).delete()) > 0,
    );
  }

  list(options: { enabledOnly?: boolean } = {}): Promise<McpServerRow[]> {
    return guard('mcpServers.list', async () => {
      const query = this.knex('mcp_servers');
      if (options.enabledOnly) query.where({ enabled: 1 });
      const rows = (await query.orderBy('name')) as DbRow[];
      return rows.map(toServer);
    });
  }
}
