// Test-only stdio MCP server (the SDK's McpServer): tool `book_table` asks the user for a small form by elicitation.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'form-fake', version: '1.0.0' });

server.registerTool(
  'book_table',
  { description: 'Books a table after asking the user for the details.', inputSchema: {} },
  async () => {
    const result = await server.server.elicitInput(
      {
        message: 'Please give the booking details.',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Name', description: 'Name for the booking' },
            guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
            outside: { type: 'boolean', title: 'Outside table' },
            time: { type: 'string', title: 'Time', enum: ['18:00', '19:30', '21:00'] },
          },
          required: ['name', 'guests'],
        },
      },
      { timeout: 10 * 60 * 1000 },
    );
    return { content: [{ type: 'text', text: `booking form result: ${JSON.stringify(result)}` }] };
  },
);

await server.connect(new StdioServerTransport());
