/** Admin operations on MCP servers defined in the database (`mcp_servers`): list, add, remove. */
import { z } from 'zod';
import { invalidServerNameReason } from '../../agent/index.js';
import { GatewayError } from '../../shared/errors.js';
import type { McpServerRow, McpServerStore } from '../../storage/index.js';
import { parseAdminInput } from './admin-input.js';

/** A database-defined server as shown to an admin: env and header values stay hidden (they often hold secrets). */
export interface McpServerView {
  name: string;
  transport: 'stdio' | 'http';
  command: string;
  args: string[];
  url: string;
  env_keys: string[];
  header_keys: string[];
  auto_approve: boolean;
  enabled: boolean;
  created_by: string;
  created: string;
}

const KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
const stringMap = (what: string) =>
  z
    .record(
      z.string().regex(KEY_PATTERN, `${what} names must be letters, digits, "_", "." or "-"`),
      z.string().max(8192),
    )
    .default({});

/** The body of `POST /v1/api/admin/mcp/servers` and the flags of `sandpiper mcp add`. */
export const mcpServerInputSchema = z
  .strictObject({
    name: z.string({ error: 'name is required' }).superRefine((name, context) => {
      const reason = invalidServerNameReason(name);
      if (reason) context.addIssue({ code: 'custom', message: reason });
    }),
    command: z.string().trim().min(1, 'command must not be empty').optional(),
    args: z.array(z.string().max(8192)).max(100).default([]),
    url: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/i, 'url must start with http:// or https://')
      .optional(),
    env: stringMap('env'),
    headers: stringMap('header'),
    auto_approve: z.boolean().default(false),
    enabled: z.boolean().default(true),
  })
  .superRefine((input, context) => {
    if ((input.command === undefined) === (input.url === undefined)) {
      context.addIssue({
        code: 'custom',
        message: 'give either command (a stdio server) or url (a streamable HTTP server)',
      });
    }
    if (input.url !== undefined && (input.args.length > 0 || Object.keys(input.env).length > 0)) {
      context.addIssue({ code: 'custom', message: 'args and env apply to stdio servers only' });
    }
    if (input.command !== undefined && Object.keys(input.headers).length > 0) {
      context.addIssue({ code: 'custom', message: 'headers apply to http servers only' });
    }
  });

function view(row: McpServerRow): McpServerView {
  return {
    name: row.name,
    transport: row.transport === 'stdio' ? 'stdio' : 'http',
    command: row.command,
    args: row.args,
    url: row.url,
    env_keys: Object.keys(row.env).sort(),
    header_keys: Object.keys(row.headers).sort(),
    auto_approve: row.autoApprove,
    enabled: row.enabled,
    created_by: row.createdBy,
    created: row.created,
  };
}

export async function listMcpServers(store: McpServerStore): Promise<McpServerView[]> {
  return (await store.list()).map(view);
}

/** Inserts a server row; CONFLICT when the name is taken. A running gateway picks it up on `mcp reload`. */
export async function addMcpServer(store: McpServerStore, input: unknown, createdBy: string): Promise<McpServerView> {
  const parsed = parseAdminInput(mcpServerInputSchema, input);
  const created = await store.create({
    name: parsed.name,
    transport: parsed.url === undefined ? 'stdio' : 'streamable-http',
    command: parsed.command ?? '',
    args: parsed.args,
    url: parsed.url ?? '',
    env: parsed.env,
    headers: parsed.headers,
    autoApprove: parsed.auto_approve,
    enabled: parsed.enabled,
    createdBy,
  });
  if (!created)
    throw new GatewayError('CONFLICT', `an MCP server named "${parsed.name}" is already defined in the database`);
  return view(created);
}

export async function removeMcpServer(store: McpServerStore, name: string): Promise<McpServerView> {
  const row = await store.getByName(name);
  if (!row || !(await store.delete(row.serverId)))
    throw new GatewayError('NOT_FOUND', `no MCP server named "${name}" in the database`);
  return view(row);
}
