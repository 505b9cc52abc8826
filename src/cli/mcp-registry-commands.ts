/** `mcp search QUERY` and `mcp install NAME`: the official MCP registry (`mcp.registry_url`); install adds a database row. */
import { addMcpServer } from '../gateway/admin/admin-mcp-servers.js';
import { findRegistryServer, installOf, localName, searchRegistry } from '../gateway/admin/mcp-registry.js';
import { UsageError } from '../shared/errors.js';
import { writeLine, type CliCommand, type CliContext } from './cli-context.js';
import { JSON_OPTION, printJson, printList, wantsJson } from './cli-output.js';
import { requirePositionals, withAuditedStores } from './command-table.js';

function stringFlag(context: CliContext, flag: string): string | undefined {
  const value = context.flags[flag];
  if (value === true) throw new UsageError(`--${flag} takes a value`);
  return typeof value === 'string' ? value : undefined;
}

/** `--env KEY=VALUE` (repeatable); a pair without `=` names the flag, never the value. */
function envPairs(context: CliContext): Record<string, string> {
  const raw = context.flags['env'];
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const env: Record<string, string> = {};
  for (const entry of list) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError('--env takes KEY=VALUE');
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}

/** Registry text is someone else's: control characters (terminal escapes) become spaces. */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

export const mcpSearchCommand: CliCommand = {
  name: 'mcp search',
  usage: 'sandpiper mcp search QUERY [--limit N] [--json]',
  summary: 'search the MCP registry for servers',
  options: { ...JSON_OPTION, limit: { type: 'string' } },
  async run(context) {
    const [query] = requirePositionals(context, 1, this.usage) as [string];
    const limit = Number(stringFlag(context, 'limit') ?? '20');
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit must be 1-100');
    const servers = await searchRegistry(context.loadConfig().mcp.registry_url, query, limit);
    printList(context, 'servers', servers, {
      headers: ['name', 'version', 'runs as', 'description'],
      row: (server) => {
        const kinds = [
          ...server.packages.map((pkg) => pkg.registryType ?? pkg.registry_name ?? '?'),
          ...server.remotes.map(() => 'remote'),
        ];
        return [server.name, server.version, kinds.join(', '), printable(server.description).slice(0, 100)];
      },
      empty: `no servers match "${query}"`,
    });
    return 0;
  },
};

export const mcpInstallCommand: CliCommand = {
  name: 'mcp install',
  usage: 'sandpiper mcp install REGISTRY_NAME [--as NAME] [--env K=V]... [--json]',
  summary: 'add a server from the MCP registry to the database (stdio servers run in the tool sandbox)',
  options: { ...JSON_OPTION, as: { type: 'string' }, env: { type: 'string', multiple: true } },
  async run(context) {
    const [registryName] = requirePositionals(context, 1, this.usage) as [string];
    const found = await findRegistryServer(context.loadConfig().mcp.registry_url, registryName);
    const plan = installOf(found, stringFlag(context, 'as') ?? localName(found.name));
    const env = envPairs(context);
    const missing = plan.required_env.filter((key) => env[key] === undefined);
    if (missing.length > 0)
      throw new UsageError(`${found.name} needs ${missing.map((key) => `--env ${key}=…`).join(', ')}`);
    const input = {
      name: plan.name,
      ...(plan.command === undefined ? {} : { command: plan.command, args: plan.args ?? [], env }),
      ...(plan.url === undefined ? {} : { url: plan.url }),
    };
    const detail = `registry: ${found.name}@${found.version}`.slice(0, 200);
    const server = await withAuditedStores(
      context,
      { action: 'mcp-server.install', target: plan.name, detail },
      (stores) => addMcpServer(stores.mcpServers, input, 'cli'),
    );
    if (wantsJson(context)) printJson(context, { server, registry: { name: found.name, version: found.version } });
    else {
      const how =
        server.transport === 'stdio'
          ? `${[server.command, ...server.args].join(' ')} (in the tool sandbox)`
          : server.url;
      writeLine(context.io.stdout, `installed ${found.name} ${found.version} as MCP server ${server.name}: ${how}`);
      writeLine(context.io.stderr, 'a running gateway applies it on: sandpiper mcp reload');
    }
    return 0;
  },
};
