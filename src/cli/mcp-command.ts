/** MCP administration of a running gateway over its admin API: `mcp status`, `refresh [SERVER]`, `reconnect SERVER`, `reload`. */
import { UsageError } from '../shared/errors.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { JSON_OPTION, printJson, wantsJson } from './cli-output.js';
import { optionalPositional } from './command-table.js';
import { callAdmin } from './gateway-client.js';

export const mcpStatusCommand: CliCommand = {
  name: 'mcp status',
  usage: 'sandpiper mcp status',
  summary: "show a running gateway's MCP servers, tools, resources and prompts",
  async run(context) {
    if (context.positionals.length > 0) throw new UsageError(`usage: ${this.usage}`);
    printJson(context, await callAdmin(context.loadConfig(), '/v1/api/admin/mcp', { scope: 'admin:read' }));
    return 0;
  },
};

export const mcpRefreshCommand: CliCommand = {
  name: 'mcp refresh',
  usage: 'sandpiper mcp refresh [SERVER]',
  summary: "re-read one or every MCP server's tools, resources and prompts",
  async run(context) {
    const server = optionalPositional(context, this.usage);
    const body = server ? { server } : {};
    printJson(context, await callAdmin(context.loadConfig(), '/v1/api/admin/mcp/refresh', { body, scope: 'admin:write' }));
    return 0;
  },
};

export const mcpReconnectCommand: CliCommand = {
  name: 'mcp reconnect',
  usage: 'sandpiper mcp reconnect SERVER',
  summary: "drop and re-open one MCP server's connection",
  async run(context) {
    const server = optionalPositional(context, this.usage);
    if (!server) throw new UsageError(`usage: ${this.usage}`);
    printJson(context, await callAdmin(context.loadConfig(), '/v1/api/admin/mcp/reconnect', { body: { server }, scope: 'admin:write' }));
    return 0;
  },
};

interface ReloadAnswer {
  added?: string[];
  removed?: string[];
  updated?: string[];
  failed?: string[];
  rejected?: Array<{ name: string; reason: string }>;
}

const names = (list: readonly string[] | undefined): string => (list && list.length > 0 ? list.join(', ') : 'none');

export const mcpReloadCommand: CliCommand = {
  name: 'mcp reload',
  usage: 'sandpiper mcp reload [--json]',
  summary: 'make a running gateway re-read its MCP server definitions (config, file, database) and reconcile',
  options: JSON_OPTION,
  async run(context) {
    if (context.positionals.length > 0) throw new UsageError(`usage: ${this.usage}`);
    const answer = (await callAdmin(context.loadConfig(), '/v1/api/admin/mcp/reload', { body: {}, scope: 'admin:write' })) as ReloadAnswer;
    if (wantsJson(context)) {
      printJson(context, answer);
    } else {
      writeLine(context.io.stdout, `added: ${names(answer.added)}; removed: ${names(answer.removed)}; updated: ${names(answer.updated)}`);
      if (answer.failed?.length) writeLine(context.io.stdout, `failed to connect: ${names(answer.failed)}`);
      for (const entry of answer.rejected ?? []) writeLine(context.io.stdout, `rejected ${entry.name}: ${entry.reason}`);
    }
    return answer.failed?.length || answer.rejected?.length ? 1 : 0;
  },
};
