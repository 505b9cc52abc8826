/** `mcp list | add | remove`: MCP servers defined in the database (a running gateway applies them on `mcp reload`). */
import {
  addMcpServer,
  listMcpServers,
  removeMcpServer,
  type McpServerView,
} from '../gateway/admin/admin-mcp-servers.js';
import { auditUrl } from '../gateway/admin/admin-audit.js';
import { UsageError } from '../shared/errors.js';
import { stringFlag, type CliCommand } from './cli-context.js';
import { JSON_OPTION } from './cli-output.js';
import { type Confirmation, listCommand, printRecord, recordCommand, withAuditedStores } from './command-table.js';

const RELOAD_HINT = 'a running gateway applies it on: sandpiper mcp reload';

/** `--env KEY=VALUE` (repeatable) as a record; a pair without `=` is a usage error that names the flag, never the value. */
function pairs(raw: string | boolean | string[] | undefined, flag: string): Record<string, string> {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const record: Record<string, string> = {};
  for (const entry of list) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`--${flag} takes KEY=VALUE`);
    record[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return record;
}

function summary(server: McpServerView): string {
  return server.transport === 'stdio' ? `stdio: ${[server.command, ...server.args].join(' ')}` : `http: ${server.url}`;
}

function confirmServer(verb: string): Confirmation<McpServerView> {
  return {
    key: 'server',
    line: (server) => `${verb} MCP server ${server.name} (${summary(server)})`,
    hint: RELOAD_HINT,
  };
}

export const mcpListCommand = listCommand({
  name: 'mcp list',
  usage: 'sandpiper mcp list [--json]',
  summary: 'list the MCP servers defined in the database (env and header values are not shown)',
  key: 'servers',
  read: () => (stores) => listMcpServers(stores.mcpServers),
  table: {
    headers: ['name', 'transport', 'enabled', 'auto_approve', 'target', 'env', 'headers'],
    row: (server) => [
      server.name,
      server.transport,
      server.enabled ? 'yes' : 'no',
      server.auto_approve ? 'yes' : 'no',
      server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : server.url,
      server.env_keys,
      server.header_keys,
    ],
    empty: 'no MCP servers in the database (servers from config.toml and mcp.config_file are not listed here)',
  },
});

export const mcpAddCommand: CliCommand = {
  name: 'mcp add',
  usage:
    'sandpiper mcp add NAME (--command CMD [--env K=V]... [-- ARG...] | --url URL [--header K=V]...) [--auto-approve] [--disabled] [--json]',
  summary: 'define an MCP server in the database',
  options: {
    ...JSON_OPTION,
    command: { type: 'string' },
    url: { type: 'string' },
    env: { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
    'auto-approve': { type: 'boolean' },
    disabled: { type: 'boolean' },
  },
  async run(context) {
    const [name, ...args] = context.positionals;
    if (name === undefined || name.trim() === '') throw new UsageError(`usage: ${this.usage}`);
    const command = stringFlag(context, 'command');
    const url = stringFlag(context, 'url');
    const input = {
      name,
      ...(command === undefined ? {} : { command }),
      ...(url === undefined ? {} : { url }),
      args,
      env: pairs(context.flags['env'], 'env'),
      headers: pairs(context.flags['header'], 'header'),
      auto_approve: context.flags['auto-approve'] === true,
      enabled: context.flags['disabled'] !== true,
    };
    const detail = command === undefined ? `http: ${auditUrl(url ?? '')}` : `stdio: ${command} (${args.length} args)`;
    const server = await withAuditedStores(context, { action: 'mcp-server.add', target: name, detail }, (stores) =>
      addMcpServer(stores.mcpServers, input, 'cli'),
    );
    printRecord(context, confirmServer('added'), server);
    return 0;
  },
};

export const mcpRemoveCommand = recordCommand({
  name: 'mcp remove',
  usage: 'sandpiper mcp remove NAME [--json]',
  summary: 'delete an MCP server defined in the database',
  arguments: 1,
  change: ([name = '']) => ({
    audit: { action: 'mcp-server.remove', target: name },
    apply: (stores) => removeMcpServer(stores.mcpServers, name),
  }),
  confirm: confirmServer('removed'),
});
