/** Starts `sandpiper start` through a launcher (node, npm start, npx, an installed bin) and checks a signal stops it cleanly. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createKnex } from '../../src/storage/index.js';
import { EVERYTHING, isAlive, waitFor } from '../fakes/mcp-servers.js';

export interface Launched {
  child: ChildProcess;
  /** stdout and stderr as they arrived. */
  output(): string;
  /** Resolves when every holder of the output pipes has exited (the launcher and whatever it left running). */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `command` in its own process group (as a shell job or a service would), so a signal can go to the launcher alone or to the group. */
export function launch(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Launched {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, closed };
}

/** A config folder for a gateway on any free port with one stdio MCP server (a child process that must not outlive it). */
export function writeGatewayConfig(dir: string, extra = ''): string {
  const file = path.join(dir, 'config.toml');
  const mcp = `[mcp.servers.everything]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\n`;
  writeFileSync(file, `[gateway]\nhttp_port = 0\n${extra}\n[log]\nformat = "json"\n\n${mcp}`);
  return file;
}

/** Every process below `root` (children, grandchildren, ...), read from /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

interface Running {
  url: string;
  /** The gateway's own pid (from its log lines), which may differ from the launcher's. */
  gatewayPid: number;
}

/** Waits for the listening line and the MCP server, as an operator would see the gateway come up. */
export async function waitRunning(launched: Launched): Promise<Running> {
  let match: RegExpMatchArray | null = null;
  await waitFor(
    () => (match = launched.output().match(/"pid":(\d+)[^\n]*"msg":"http listening on (http:\/\/[0-9.:]+)"/)) !== null,
    'http listening',
    60_000,
  );
  const [, pid, url] = match as unknown as [string, string, string];
  const health = async (): Promise<{ mcp: { servers: number } }> =>
    (await (await fetch(`${url}/health`)).json()) as { mcp: { servers: number } };
  await waitFor(async () => (await health()).mcp.servers === 1, 'the MCP server to connect', 60_000);
  return { url, gatewayPid: Number(pid) };
}

/**
 * Sends `signal` to the launcher process only (what a supervisor holding its pid does), or with `to: 'group'` to its
 * process group (Ctrl-C in a terminal, systemd's control group), and checks that the gateway stopped gracefully: it
 * logged "stopped", deregistered from the services table, and neither it nor any process it started is left.
 */
export async function assertStopsGracefully(
  launched: Launched,
  signal: NodeJS.Signals,
  databaseFile: string,
  to: 'launcher' | 'group' = 'launcher',
): Promise<{ code: number | null }> {
  const { url, gatewayPid } = await waitRunning(launched);
  const tree = [...descendants(launched.child.pid as number), launched.child.pid as number];
  assert.ok(tree.includes(gatewayPid), 'the gateway runs under the launcher');
  assert.ok(descendants(gatewayPid).length > 0, 'the MCP server runs as a child of the gateway');
  const pid = launched.child.pid as number;
  process.kill(to === 'group' ? -pid : pid, signal);
  const { code } = await launched.closed;
  await waitFor(() => tree.every((pid) => !isAlive(pid)), 'every process of the launch to exit', 30_000);
  assert.match(launched.output(), /"msg":"stopped"/, launched.output().slice(-3000));
  await assert.rejects(fetch(`${url}/health`), 'nothing listens any more');
  const knex = createKnex(`sqlite:${databaseFile}`);
  try {
    assert.deepEqual(await knex('services').select('service_id'), [], 'the gateway deregistered');
  } finally {
    await knex.destroy();
  }
  return { code };
}
