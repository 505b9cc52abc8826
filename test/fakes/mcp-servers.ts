/** Test helpers for the MCP integration tests: real npm servers spawned from node_modules, specs, waitFor. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createSilentLogger } from '../../src/shared/logger.js';
import type { McpServerSpec } from '../../src/agent/mcp/mcp-server-spec.js';
import type { ToolContext } from '../../src/agent/tools/tool.js';
import { waitFor } from '../helpers/wait-for.js';

const require = createRequire(import.meta.url);
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
export const STDIO_TAP = fileURLToPath(new URL('./mcp-stdio-tap.mjs', import.meta.url));

export function stdioSpec(name: string, args: string[], extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return {
    name,
    source: 'toml',
    transport: 'stdio',
    command: process.execPath,
    args,
    env: {},
    url: '',
    headers: {},
    ...extra,
  };
}

export function everythingStdio(name = 'everything', extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return stdioSpec(name, [EVERYTHING, 'stdio'], extra);
}

export function httpSpec(name: string, url: string, extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return { name, source: 'toml', transport: 'http', command: '', args: [], env: {}, url, headers: {}, ...extra };
}

export { waitFor };

export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    workstreamId: 'ws-test',
    cwd: process.cwd(),
    timeoutMs: 20_000,
    outputLimit: 100_000,
    supportsVision: false,
    readFiles: new Set(),
    logger: createSilentLogger(),
    ...overrides,
  };
}

/**
 * A port nobody listens on now, for a process started later to listen on (a config's fixed port). It is picked below
 * the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default): a port from `listen(0)`
 * could be handed again, to another test's `listen(0)` or outgoing connection, before that process binds it.
 */
export async function freePort(): Promise<number> {
  const below = Math.max(ephemeralStart(), LOWEST_PORT + 1000);
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (below - LOWEST_PORT));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST_PORT} and ${below}`);
}

const LOWEST_PORT = 10_000;

/** The first port of the kernel's ephemeral range (Linux), else the usual 32768. */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface HttpEverything {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs server-everything's streamable HTTP transport on `port` and waits until it listens. */
export async function startEverythingHttp(port: number): Promise<HttpEverything> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  await waitFor(
    () => stderr.includes(`listening on port ${port}`) || child.exitCode !== null,
    'server-everything HTTP to listen',
  );
  if (child.exitCode !== null) throw new Error(`server-everything exited: ${stderr.slice(0, 500)}`);
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return { url: `http://127.0.0.1:${port}/mcp`, port, child, stop };
}

/** Whether a process id is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
