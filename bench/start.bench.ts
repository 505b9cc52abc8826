/**
 * Start-up figures of the real `sandpiper` bin (issue 14 targets: --help < 0.5 s, start ready < 1.5 s):
 * `--help`; `start` until ready (migrations done, HTTP up: the "http listening" line) without MCP; the same with three
 * stdio MCP servers, plus until all three are connected. Baselines: a bare `node` that prints, and one that opens an
 * HTTP server and prints the same kind of line. Interleaved rounds, medians; each start gets a fresh data folder.
 * In the first IDLE_ROUNDS rounds, the ready gateway and the HTTP baseline are then left alone and the CPU they use
 * while nothing happens is read from /proc (Linux): an idle process should not wake itself up many times a second.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
// SANDPIPER_BENCH_BIN measures another build of the bin (e.g. a copy with a change under test).
const BIN = process.env['SANDPIPER_BENCH_BIN'] ?? path.resolve(import.meta.dirname, '..', 'bin', 'sandpiper.js');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
const TIMEOUT_MS = 60_000;
const IDLE_ROUNDS = Math.min(3, ROUNDS);
/** An idle process is left this long after ready before its CPU is read, then read again after IDLE_WINDOW_MS. */
const IDLE_SETTLE_MS = 2_000;
const IDLE_WINDOW_MS = 10_000;
/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

const BASELINE_HTTP = `require('node:http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () {
  console.log('http listening on http://127.0.0.1:' + this.address().port);
}); process.on('SIGTERM', () => process.exit(0));`;

interface Timed {
  /** ms from spawn to the first match of `ready` (or to exit when there is no pattern). */
  readyMs: number;
  /** ms from spawn to the second pattern, when given. */
  laterMs?: number;
  /** CPU ms per second the process used while idle after ready, when measured. */
  idleCpuMsPerS?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** User + system CPU of `pid` (all its threads) in ms, from /proc; undefined where there is no /proc. */
function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return undefined;
  }
}

/** CPU ms per second `pid` uses over IDLE_WINDOW_MS, once IDLE_SETTLE_MS passed. */
async function idleCpu(pid: number | undefined): Promise<number | undefined> {
  await sleep(IDLE_SETTLE_MS);
  const before = cpuMsOf(pid);
  await sleep(IDLE_WINDOW_MS);
  const after = cpuMsOf(pid);
  return before === undefined || after === undefined ? undefined : ((after - before) * 1000) / IDLE_WINDOW_MS;
}

/** Spawns `args`, times the patterns on stdout, then stops the process with SIGTERM and waits for it. */
function timeProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready?: RegExp,
  later?: (url: string) => Promise<void>,
  idle = false,
): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let result: Timed | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${args.join(' ')}\n${output.slice(-2000)}`));
    }, TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = ready && result === undefined ? output.match(ready) : null;
      if (!match) return;
      result = { readyMs: performance.now() - started };
      const waitLater = later ? later(match[1] ?? '') : Promise.resolve();
      void waitLater.then(
        async () => {
          if (later && result) result.laterMs = performance.now() - started;
          if (idle && result) {
            const cpu = await idleCpu(child.pid);
            if (cpu !== undefined) result.idleCpuMsPerS = cpu;
          }
          child.kill('SIGTERM');
        },
        (error: unknown) => {
          child.kill('SIGKILL');
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (!ready) resolve({ readyMs: performance.now() - started });
      else if (result) resolve(result);
      else reject(new Error(`exited (${code}) before ready: ${args.join(' ')}\n${output.slice(-2000)}`));
    });
  });
}

async function mcpConnected(url: string, servers: number): Promise<void> {
  for (;;) {
    const health = (await (await fetch(`${url}/health`)).json()) as { mcp: { servers: number } };
    if (health.mcp.servers >= servers) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const LISTENING = /http listening on (http:\/\/[0-9.:]+)/;

function startEnv(folder: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    HOME: folder,
    SANDPIPER_HTTP_PORT: '0',
    SANDPIPER_LOG_FORMAT: 'json',
    SANDPIPER_DATA_DIR: path.join(folder, 'data'),
  };
}

function mcpConfig(folder: string): string {
  const file = path.join(folder, 'mcp.toml');
  const servers = ['one', 'two', 'three'].map(
    (name) =>
      `[mcp.servers.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\n`,
  );
  writeFileSync(file, servers.join('\n'));
  return file;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(tmpdir(), 'sp-bench-start-'));
  const samples: Record<string, number[]> = {};
  const add = (name: string, ms: number | undefined): void => {
    if (ms !== undefined) (samples[name] ??= []).push(ms);
  };
  try {
    const config = mcpConfig(root);
    // Round 0 warms the disk cache and is not counted.
    for (let round = 0; round <= ROUNDS; round += 1) {
      const keep = round > 0;
      const fresh = (): string => mkdtempSync(path.join(root, 'run-'));
      const baseHelp = await timeProcess(['-e', 'console.log("usage")'], { PATH: process.env['PATH'] });
      const help = await timeProcess([BIN, '--help'], { PATH: process.env['PATH'], HOME: root });
      const idle = keep && round <= IDLE_ROUNDS;
      const baseReady = await timeProcess(
        ['-e', BASELINE_HTTP],
        { PATH: process.env['PATH'] },
        LISTENING,
        undefined,
        idle,
      );
      const ready = await timeProcess([BIN, 'start'], startEnv(fresh()), LISTENING, undefined, idle);
      const withMcp = await timeProcess([BIN, 'start', '--config', config], startEnv(fresh()), LISTENING, (url) =>
        mcpConnected(url, 3),
      );
      if (!keep) continue;
      add('baseline node print', baseHelp.readyMs);
      add('sandpiper --help', help.readyMs);
      add('baseline node http', baseReady.readyMs);
      add('start ready, no MCP', ready.readyMs);
      add('start ready, 3 stdio MCP servers', withMcp.readyMs);
      add('  ... and all 3 MCP servers connected', withMcp.laterMs);
      add('idle CPU ms/s, baseline node http', baseReady.idleCpuMsPerS);
      add('idle CPU ms/s, start ready, no MCP', ready.idleCpuMsPerS);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  console.log(`start-up of ${path.relative(process.cwd(), BIN) || BIN} (${ROUNDS} interleaved rounds, medians, ms):`);
  for (const [name, values] of Object.entries(samples))
    console.log(
      `  ${name.padEnd(40)} ${median(values)
        .toFixed(name.startsWith('idle') ? 1 : 0)
        .padStart(6)}`,
    );
  console.log('targets: --help < 500 ms, start ready < 1500 ms');
}

await main();
