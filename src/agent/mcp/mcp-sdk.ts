/**
 * The entry points into the MCP SDK, loaded at the first use instead of at start: a gateway without MCP servers never
 * holds the SDK (about 20 MB of memory and a fifth of a second of start-up). `mcp-connection.ts` is the one module
 * that imports the SDK; everything else reaches it through here or imports its types only.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpConnectOptions, McpConnection } from './mcp-connection.js';

/** Connects one server (`mcp-connection.ts`), loading the SDK the first time. */
export async function connectMcpServer(options: McpConnectOptions): Promise<McpConnection> {
  const connection = await import('./mcp-connection.js');
  return connection.connectMcpServer(options);
}

/** The SDK's OAuth flow for one provider: refresh, or exchange an authorization code (`authorizationCode`). */
export async function authorize(
  provider: OAuthClientProvider,
  options: { serverUrl: string; authorizationCode?: string },
): Promise<'AUTHORIZED' | 'REDIRECT'> {
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  return auth(provider, options);
}
