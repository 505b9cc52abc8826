/** A TCP reachability probe for HTTP MCP servers (before the SDK transport starts). */
import { connect as netConnect } from 'node:net';
import { McpCallError } from './mcp-call-error.js';

/** Fails fast with "unreachable" before the HTTP transport starts (note: bypasses HTTP proxies). */
export function probeTcp(name: string, url: string, timeoutMs: number): Promise<void> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    const fail = (reason: string): void => {
      socket.destroy();
      reject(new McpCallError('transport', `MCP server '${name}' unreachable at ${host}:${port}: ${reason}`));
    };
    // Purpose: timeout (an unreachable server fails the probe).
    socket.setTimeout(timeoutMs, () => fail('timed out'));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? 'connection failed'));
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
  });
}
