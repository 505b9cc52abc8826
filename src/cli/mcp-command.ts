/** `sandpiper mcp status|refresh [SERVER]|reconnect SERVER`: MCP administration of a running gateway. */
import { UsageError } from '../shared/errors.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { callGateway } from './gateway-client.js';

export const mcpCommand: CliCommand = {
  name: 'mcp',
  usage: 'sandpiper mcp status | refresh [SERVER] | reconnect SERVER',
  summary: "show, refresh or reconnect a running gateway's MCP servers",
  async run(context) {
    const [action, server, extra] = context.positionals;
    if (extra !== undefined) throw new UsageError(`usage: ${this.usage}`);
    const config = context.loadConfig();
    let answer: Record<string, unknown>;
    if (action === 'status' && server === undefined) {
      answer = await callGateway(config, '/v1/api/admin/mcp', { scopes: ['service'] });
    } else if (action === 'refresh') {
      answer = await callGateway(config, '/v1/api/admin/mcp/refresh', { body: server ? { server } : {}, scopes: ['service'] });
    } else if (action === 'reconnect' && server) {
      answer = await callGateway(config, '/v1/api/admin/mcp/reconnect', { body: { server }, scopes: ['service'] });
    } else {
      throw new UsageError(`usage: ${this.usage}`);
    }
    writeLine(context.io.stdout, JSON.stringify(answer, null, 2));
    return 0;
  },
};
