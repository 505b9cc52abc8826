/** MCP manager resilience against real servers: breaker trips and recovery, timeouts with cancellation, dead children. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import {
  EVERYTHING,
  STDIO_TAP,
  everythingStdio,
  freePort,
  httpSpec,
  isAlive,
  startEverythingHttp,
  stdioSpec,
  toolContext,
  waitFor,
  type HttpEverything,
} from '../fakes/mcp-servers.js';

const parentEnv = { PATH: process.env['PATH'], HOME: process.env['HOME'] };

describe('MCP over streamable HTTP: breaker trips when the server dies and recovers by reconnect', () => {
  let server: HttpEverything;
  let manager: McpManager;
  let clock = 0;

  before(async () => {
    server = await startEverythingHttp(await freePort());
    manager = createMcpManager({
      servers: [httpSpec('remote', server.url), httpSpec('down', 'http://127.0.0.1:1/mcp')],
      parentEnv,
      debounceMs: 50,
      breaker: { now: () => clock },
    });
    await manager.start();
  });

  after(async () => {
    await manager.shutdown();
    await server.stop();
  });

  it('discovers and calls tools over HTTP while an unreachable server only records its error', async () => {
    const status = manager.status();
    const remote = status.perServer.find((entry) => entry.name === 'remote');
    const down = status.perServer.find((entry) => entry.name === 'down');
    assert.equal(remote?.connected, true);
    assert.equal(remote?.transport, 'http');
    assert.equal(down?.connected, false);
    assert.match(down?.error ?? '', /unreachable at 127\.0\.0\.1:1/);
    assert.equal(down?.consecutiveFailures, 1);
    const echo = await manager.callTool('mcp__remote__echo', { message: 'over http' }, toolContext());
    assert.match(String(echo.output), /^<untrusted source="mcp" [^>]*>\nEcho: over http\n<\/untrusted>$/);
  });

  it('opens the circuit after three failed calls, refuses further calls, and recovers after a manual reconnect', async () => {
    await server.stop();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const failed = await manager.callTool('mcp__remote__echo', { message: 'x' }, toolContext());
      assert.equal(failed.isError, true, `attempt ${attempt} should fail`);
    }
    let status = manager.status().perServer.find((entry) => entry.name === 'remote');
    assert.equal(status?.circuitOpen, true);
    assert.equal(status?.connected, false);
    const refused = await manager.callTool('mcp__remote__echo', { message: 'x' }, toolContext());
    assert.match(String(refused.output), /circuit open \(cooldown \d+s remaining\)/);
    assert.ok(manager.hasTool('mcp__remote__echo'), 'tools stay listed so a later call can reconnect');

    server = await startEverythingHttp(server.port);
    const stillRefused = await manager.callTool('mcp__remote__echo', { message: 'x' }, toolContext());
    assert.match(String(stillRefused.output), /circuit open/);
    const reconnected = await manager.reconnect('remote');
    assert.equal(reconnected.connected, true);
    assert.equal(reconnected.circuitOpen, false);
    assert.equal(reconnected.error, '');
    const echo = await manager.callTool('mcp__remote__echo', { message: 'back' }, toolContext());
    assert.match(String(echo.output), /^<untrusted source="mcp" [^>]*>\nEcho: back\n<\/untrusted>$/);
    status = manager.status().perServer.find((entry) => entry.name === 'remote');
    assert.equal(status?.consecutiveFailures, 0);
  });

  it('lets a half-open probe through after the cooldown and reconnects automatically', async () => {
    await server.stop();
    for (let attempt = 0; attempt < 3; attempt += 1)
      await manager.callTool('mcp__remote__echo', { message: 'x' }, toolContext());
    assert.equal(manager.status().perServer.find((entry) => entry.name === 'remote')?.circuitOpen, true);
    server = await startEverythingHttp(server.port);
    clock += 30_000 * 1.1 + 1;
    const probe = await manager.callTool('mcp__remote__echo', { message: 'probe' }, toolContext());
    assert.match(String(probe.output), /^<untrusted source="mcp" [^>]*>\nEcho: probe\n<\/untrusted>$/);
    const status = manager.status().perServer.find((entry) => entry.name === 'remote');
    assert.equal(status?.connected, true);
    assert.equal(status?.circuitOpen, false);
  });

  it('does not count a JSON-RPC error from a healthy server against it', async () => {
    const result = await manager.callTool(
      'read_resource',
      { uri: 'demo://resource/dynamic/text/not-a-number' },
      toolContext(),
    );
    assert.equal(result.isError, true);
    assert.equal(
      result.output,
      'MCP resource error: failed to read resource',
      'server error text is logged, not shown',
    );
    const status = manager.status().perServer.find((entry) => entry.name === 'remote');
    assert.deepEqual([status?.connected, status?.consecutiveFailures], [true, 0]);
  });

  it('drops the catalog of a server whose manual reconnect fails, and restores it on the next one', async () => {
    await server.stop();
    const failed = await manager.reconnect('remote');
    assert.equal(failed.connected, false);
    assert.match(failed.error, /^Reconnect failed: .*unreachable/);
    assert.equal(failed.tools, 0);
    assert.equal(manager.hasTool('mcp__remote__echo'), false, 'models stop seeing tools without a session');
    server = await startEverythingHttp(server.port);
    const restored = await manager.reconnect('remote');
    assert.equal(restored.connected, true);
    assert.ok(manager.hasTool('mcp__remote__echo'));
  });

  it('reports an unknown server on reconnect without throwing', async () => {
    const status = await manager.reconnect('missing');
    assert.deepEqual([status.connected, status.tools, status.error], [false, 0, 'unknown server']);
  });
});

describe('MCP over stdio: timeouts cancel on the server, dead children are replaced, shutdown kills the group', () => {
  let manager: McpManager;
  let dir: string;
  let tapLog: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-mcp-tap-'));
    tapLog = join(dir, 'client-to-server.jsonl');
    writeFileSync(tapLog, '');
    manager = createMcpManager({
      servers: [
        stdioSpec('tapped', [STDIO_TAP, tapLog, process.execPath, EVERYTHING, 'stdio']),
        everythingStdio('plain'),
      ],
      parentEnv,
      debounceMs: 50,
      elicitationTimeoutMs: 300,
    });
    await manager.start();
  });

  after(async () => {
    await manager.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('re-lists tools after the server pushes tools/list_changed (what running sessions read)', async () => {
    const lines = (): string[] => readFileSync(tapLog, 'utf8').split('\n');
    await waitFor(
      () =>
        lines().some((line) => line.startsWith('< ') && line.includes('"method":"notifications/tools/list_changed"')),
      'the push',
    );
    await waitFor(
      () => lines().filter((line) => line.startsWith('> ') && line.includes('"method":"tools/list"')).length >= 2,
      'a second tools/list',
    );
    const pushAt = lines().findIndex(
      (line) => line.startsWith('< ') && line.includes('notifications/tools/list_changed'),
    );
    const relistAt = lines().findLastIndex((line) => line.startsWith('> ') && line.includes('"method":"tools/list"'));
    assert.ok(relistAt > pushAt, 'the re-list follows the push');
    const names = (await manager.listTools()).map((tool) => tool.name);
    assert.ok(
      names.includes('mcp__tapped__trigger-elicitation-request'),
      'the conditionally registered tool is offered',
    );
  });

  it('times out a hung call, sends notifications/cancelled, and keeps the session', async () => {
    const result = await manager.callTool(
      'mcp__tapped__trigger-long-running-operation',
      { duration: 30, steps: 30 },
      toolContext({ timeoutMs: 1000 }),
    );
    assert.deepEqual(result, { output: 'MCP tool timed out after 1s', isError: true });
    await waitFor(
      () => readFileSync(tapLog, 'utf8').includes('> {"jsonrpc":"2.0","method":"notifications/cancelled"'),
      'the cancellation notification on the wire',
    );
    const status = manager.status().perServer.find((entry) => entry.name === 'tapped');
    assert.equal(status?.connected, true);
    assert.equal(status?.consecutiveFailures, 1);
    assert.match(
      String((await manager.callTool('mcp__tapped__echo', { message: 'still here' }, toolContext())).output),
      /\nEcho: still here\n<\/untrusted>$/,
    );
  });

  it('rethrows a caller abort without counting it against the server', async () => {
    const controller = new AbortController();
    const call = manager.callTool(
      'mcp__plain__trigger-long-running-operation',
      { duration: 30, steps: 30 },
      toolContext({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(call, (error: Error) => error.name === 'AbortError');
    assert.equal(manager.status().perServer.find((entry) => entry.name === 'plain')?.consecutiveFailures, 0);
  });

  it('replaces a killed stdio server on the next call', async () => {
    const before = manager.status().perServer.find((entry) => entry.name === 'plain');
    assert.ok(before?.pid !== undefined);
    process.kill(before.pid, 'SIGKILL');
    await waitFor(
      () => manager.status().perServer.find((entry) => entry.name === 'plain')?.connected === false,
      'the session to be evicted',
    );
    const echo = await manager.callTool('mcp__plain__echo', { message: 'again' }, toolContext());
    assert.match(String(echo.output), /^<untrusted source="mcp" [^>]*>\nEcho: again\n<\/untrusted>$/);
    const after = manager.status().perServer.find((entry) => entry.name === 'plain');
    assert.equal(after?.connected, true);
    assert.notEqual(after?.pid, before.pid);
  });

  it('answers elicitation requests through the registered handler, and declines when nobody answers in time', async () => {
    const seen: string[] = [];
    const stop = manager.onElicitation(async (request) => {
      seen.push(`${request.server}:${request.workstreamIds.join(',')}`);
      return { action: 'accept', content: { name: 'Ada', check: true } };
    });
    const accepted = await manager.callTool(
      'mcp__plain__trigger-elicitation-request',
      {},
      toolContext({ workstreamId: 'ws-form' }),
    );
    assert.match(String(accepted.output), /User provided the requested information[\s\S]*Name: Ada/);
    assert.deepEqual(seen, ['plain:ws-form']);
    stop();
    manager.onElicitation(() => new Promise(() => undefined));
    const declined = await manager.callTool('mcp__plain__trigger-elicitation-request', {}, toolContext());
    assert.match(String(declined.output), /declined/);
  });

  it('kills the whole process group of a stdio server on shutdown', async () => {
    const tapPid = manager.status().perServer.find((entry) => entry.name === 'tapped')?.pid;
    const childPid = Number(/#child (\d+)/.exec(readFileSync(tapLog, 'utf8'))?.[1]);
    assert.ok(tapPid !== undefined && childPid > 0);
    assert.ok(isAlive(tapPid) && isAlive(childPid));
    await manager.shutdown();
    await waitFor(() => !isAlive(tapPid) && !isAlive(childPid), 'the server and its child to exit');
    assert.equal(manager.status().tools, 0);
  });
});
