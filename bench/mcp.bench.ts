/** Benchmarks the MCP manager: parallel start-up of 1 vs 3 stdio servers, and per-call overhead over a bare SDK client. */
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createMcpManager } from '../src/agent/mcp/mcp-manager.js';
import type { McpServerSpec } from '../src/agent/mcp/mcp-server-spec.js';
import { createSilentLogger } from '../src/shared/logger.js';
import type { ToolContext } from '../src/agent/tools/tool.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const parentEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'] };
const ROUNDS = 3;
const CALLS = 300;
const WARMUP = 30;

function spec(name: string): McpServerSpec {
  return {
    name,
    source: 'toml',
    transport: 'stdio',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    env: {},
    url: '',
    headers: {},
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function startupMs(serverCount: number): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const manager = createMcpManager({
      servers: Array.from({ length: serverCount }, (_, i) => spec(`s${i}`)),
      parentEnv,
    });
    const started = performance.now();
    await manager.start();
    samples.push(performance.now() - started);
    if (manager.status().servers !== serverCount) throw new Error('not every server connected');
    await manager.shutdown();
  }
  return median(samples);
}

async function bareCallUs(): Promise<number> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  );
  const call = () => client.callTool({ name: 'echo', arguments: { message: 'bench' } }, undefined, { timeout: 10_000 });
  for (let i = 0; i < WARMUP; i += 1) await call();
  const started = performance.now();
  for (let i = 0; i < CALLS; i += 1) await call();
  const perCall = ((performance.now() - started) / CALLS) * 1000;
  await client.close();
  return perCall;
}

async function managerCallUs(): Promise<number> {
  const manager = createMcpManager({ servers: [spec('bench')], parentEnv });
  await manager.start();
  const context: ToolContext = {
    signal: new AbortController().signal,
    workstreamId: 'bench',
    cwd: process.cwd(),
    timeoutMs: 10_000,
    outputLimit: 100_000,
    supportsVision: false,
    readFiles: new Set(),
    logger: createSilentLogger(),
  };
  const call = () => manager.callTool('mcp__bench__echo', { message: 'bench' }, context);
  for (let i = 0; i < WARMUP; i += 1) await call();
  const started = performance.now();
  for (let i = 0; i < CALLS; i += 1) {
    const result = await call();
    if (result.isError) throw new Error('echo failed');
  }
  const perCall = ((performance.now() - started) / CALLS) * 1000;
  await manager.shutdown();
  return perCall;
}

const one = await startupMs(1);
const three = await startupMs(3);
console.log(`start-up, 1 stdio server:                 ${one.toFixed(0)} ms (median of ${ROUNDS})`);
console.log(
  `start-up, 3 stdio servers in parallel:    ${three.toFixed(0)} ms (median of ${ROUNDS}; ${(three / one).toFixed(2)}x one server)`,
);
const bare = await bareCallUs();
const managed = await managerCallUs();
console.log(`echo via bare SDK client:                 ${bare.toFixed(0)} µs/call (${CALLS} sequential calls)`);
console.log(`echo via McpManager.callTool:             ${managed.toFixed(0)} µs/call`);
console.log(
  `manager overhead:                         ${(managed - bare).toFixed(0)} µs/call (${(((managed - bare) / bare) * 100).toFixed(1)} %)`,
);
