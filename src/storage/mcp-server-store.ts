/** MCP servers defined in the database (`mcp_servers`). */

export interface McpServerRow {
  serverId: string;
  name: string;
  transport: 'stdio' | 'streamable-http';
  command: string;
  args: string[];
  url: string;
  headers: Record<string, string>;
  env: Record<string, string>;
  autoApprove: boolean;
  enabled: boolean;
  createdBy: string;
  created: string;
  updated: string;
}

export type McpServerInput = Pick<McpServerRow, 'name' | 'transport'> &
  Partial<Pick<McpServerRow, 'command' | 'args' | 'url' | 'headers' | 'env' | 'autoApprove' | 'enabled' | 'createdBy'>>;

export interface McpServerStore {
  /** Inserts; returns undefined when the name exists. */
  create(input: McpServerInput): Promise<McpServerRow | undefined>;
  getByName(name: string): Promise<McpServerRow | undefined>;
  update(serverId: string, patch: Partial<Omit<McpServerInput, never>>): Promise<boolean>;
  delete(serverId: string): Promise<boolean>;
  /** By name; only enabled rows when `enabledOnly`. Bad JSON in args/headers/env reads as empty. */
  list(options?: { enabledOnly?: boolean }): Promise<McpServerRow[]>;
}
