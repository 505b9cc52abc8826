/**
 * Tool network by approval (issue 32, item 3): a sandboxed bash reaches the network only through the gateway's egress
 * proxy. Real bubblewrap, real curl, local HTTP servers as the "remote" hosts (trusted by `tools.network_internal`,
 * the operator's explicit trust for private addresses, so the loopback rule does not block the test's own targets).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findExecutable } from '../../src/agent/tools/run-contained.js';
import { detectSandbox } from '../../src/agent/sandbox/detect-sandbox.js';
import type { NetworkAnswer, NetworkPermissions } from '../../src/agent/sandbox/egress/egress-session.js';
import { createSandbox, type Sandbox } from '../../src/agent/sandbox/sandbox.js';
import { bashHandler } from '../../src/agent/tools/builtin/bash.js';
import type { ToolContext } from '../../src/agent/tools/tool.js';
import { createToolContext } from '../helpers/tool-context.js';

interface Asked {
  tool: string;
  label: string;
}

/** A stand-in for the workstream's cards: records every question and answers with the queued answers. */
function recordingPermissions(
  answers: NetworkAnswer[],
  standing: Record<string, 'allow' | 'deny'> = {},
): NetworkPermissions & { asked: Asked[] } {
  const asked: Asked[] = [];
  return {
    asked,
    standing: (label) => Promise.resolve(standing[label]),
    ask: (request) => {
      asked.push({ tool: request.tool, label: request.label });
      return Promise.resolve(answers.shift() ?? 'deny');
    },
  };
}

async function startServer(body: string): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((request, response) => response.end(`${body} ${request.method} ${request.url}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('tool network through the egress proxy (bubblewrap)', () => {
  let sandbox: Sandbox;
  let workspace: string;
  let allowed: { server: http.Server; port: number };
  let fresh: { server: http.Server; port: number };
  let gatewayPort: { server: http.Server; port: number };
  let untrusted: { server: http.Server; port: number };
  let usable = false;

  before(async () => {
    [allowed, fresh, gatewayPort, untrusted] = await Promise.all([
      startServer('ALLOWED-HOST'),
      startServer('NEW-HOST'),
      startServer('GATEWAY-ITSELF'),
      startServer('LOOPBACK-SERVICE'),
    ]);
    const status = await detectSandbox({ mode: 'auto' });
    usable = status.kind === 'bwrap' && (await findExecutable('curl')) !== undefined;
    workspace = mkdtempSync(path.join('/var/tmp', 'sp-egress-'));
    sandbox = createSandbox(status, {
      network: 'ask',
      egress: {
        allow: [`127.0.0.1:${allowed.port}`],
        // Trusted private destinations; the gateway's own port is listed too, and must still be refused.
        internal: [`127.0.0.1:${allowed.port}`, `127.0.0.1:${fresh.port}`, `127.0.0.1:${gatewayPort.port}`],
        gateway: { host: '127.0.0.1', port: gatewayPort.port },
      },
    });
  });
  after(() => {
    for (const entry of [allowed, fresh, gatewayPort, untrusted]) entry?.server.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  });

  const bash = async (command: string, permissions?: NetworkPermissions): Promise<string> => {
    const context: ToolContext = createToolContext(workspace, {
      sandbox,
      toolName: 'bash',
      timeoutMs: 30_000,
      ...(permissions === undefined ? {} : { network: permissions }),
    });
    const result = await bashHandler.execute({ command }, context);
    return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
  };
  const curl = (url: string, extra = ''): string => `curl -sS --max-time 20 ${extra} '${url}'; echo " exit=$?"`;

  it('reaches an allowlisted host through the proxy (HTTP and CONNECT) without a card', async (t) => {
    if (!usable) return t.skip('bubblewrap or curl is not usable on this host');
    const permissions = recordingPermissions([]);
    const output = await bash(
      `${curl(`http://127.0.0.1:${allowed.port}/simple`)}; ${curl(`http://127.0.0.1:${allowed.port}/tunnel`, '--proxytunnel')}`,
      permissions,
    );
    assert.match(output, /ALLOWED-HOST GET \/simple exit=0/);
    assert.match(output, /ALLOWED-HOST GET \/tunnel exit=0/, 'CONNECT tunnels pass too');
    assert.deepEqual(permissions.asked, []);
  });

  it('has no network of its own: a connection around the proxy fails', async (t) => {
    if (!usable) return t.skip('bubblewrap or curl is not usable on this host');
    const output = await bash(curl(`http://127.0.0.1:${allowed.port}/direct`, "--noproxy '*'"));
    assert.doesNotMatch(output, /ALLOWED-HOST/);
    assert.match(output, /exit=7/, 'connection refused inside the sandbox');
  });

  it('asks the owner about a new host once per call, and an Allow once is honoured', async (t) => {
    if (!usable) return t.skip('bubblewrap or curl is not usable on this host');
    const permissions = recordingPermissions(['once']);
    const output = await bash(
      `${curl(`http://127.0.0.1:${fresh.port}/one`)}; ${curl(`http://127.0.0.1:${fresh.port}/two`)}`,
      permissions,
    );
    assert.match(output, /NEW-HOST GET \/one exit=0/);
    assert.match(output, /NEW-HOST GET \/two exit=0/);
    assert.deepEqual(permissions.asked, [{ tool: 'bash', label: `network:127.0.0.1:${fresh.port}` }]);
  });

  it('a Deny is honoured: the request fails with the reason and nothing reaches the host', async (t) => {
    if (!usable) return t.skip('bubblewrap or curl is not usable on this host');
    const permissions = recordingPermissions(['deny']);
    const output = await bash(curl(`http://127.0.0.1:${fresh.port}/denied`, '-i'), permissions);
    assert.doesNotMatch(output, /NEW-HOST/);
    assert.match(output, /403/);
    assert.match(output, /the owner denied 127\.0\.0\.1:\d+/);
    assert.equal(permissions.asked.length, 1);
  });

  it('a standing decision (Always here, a network policy) passes without a card; without anyone to ask, only the allowlist passes', async (t) => {
    if (!usable) return t.skip('bubblewrap or curl is not usable on this host');
    const always = recordingPermissions([], { [`network:127.0.0.1:${fresh.port}`]: 'allow' });
    assert.match(await bash(curl(`http://127.0.0.1:${fresh.port}/always`), always), /NEW-HOST GET \/always exit=0/);
    assert.deepEqual(always.asked, []);
    const nobody = await bash(curl(`http://127.0.0.1:${fresh.port}/nobody`, '-i'));
    assert.match(nobody, /403/);
    assert.doesNotMatch(nobody, /NEW-HOST/);
  });

  it('refuses loopback, private, link-local, metadata and the gateway itself without a card, whatever the answer would be', async (t) => {
    if (!usable) return t.skip('bubblewrap or curl is not usable on this host');
    const targets = [
      `http://127.0.0.1:${untrusted.port}/`,
      `http://localhost:${untrusted.port}/`,
      `http://[::1]:${untrusted.port}/`,
      `http://127.0.0.1:${gatewayPort.port}/`,
      `http://[::ffff:127.0.0.1]:${gatewayPort.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://172.16.0.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
    ];
    for (const target of targets) {
      const permissions = recordingPermissions(['always']);
      const output = await bash(
        `${curl(target, '-i')}; ${curl(target.replace(/\/$/, '/tls').replace('http://', 'https://'))}`,
        permissions,
      );
      assert.match(output, /403/, `${target} refused`);
      assert.match(output, /Blocked: /, `${target} says why`);
      assert.doesNotMatch(output, /LOOPBACK-SERVICE|GATEWAY-ITSELF/, `${target} reached nothing`);
      assert.deepEqual(permissions.asked, [], `${target} asked nobody`);
    }
  });

  it('opens at most five cards per call, one at a time; further new hosts are refused with the reason', async (t) => {
    if (!usable) return t.skip('bubblewrap or curl is not usable on this host');
    const ports = Array.from({ length: 8 }, (_, index) => 40_101 + index);
    const busy = createSandbox(sandbox.status, {
      network: 'ask',
      egress: { allow: [], internal: ports.map((port) => `127.0.0.1:${port}`) },
    });
    let open = 0;
    let mostOpen = 0;
    const asked: string[] = [];
    const permissions: NetworkPermissions = {
      standing: () => Promise.resolve(undefined),
      ask: async (request) => {
        asked.push(request.label);
        mostOpen = Math.max(mostOpen, ++open);
        await new Promise((resolve) => setTimeout(resolve, 20));
        open -= 1;
        return 'deny';
      },
    };
    const command =
      ports
        .slice(0, 7)
        .map((port) => `curl -sS -o /dev/null --max-time 20 http://127.0.0.1:${port}/ 2>&1 &`)
        .join('\n') + '\nwait; curl -sS -i --max-time 20 http://127.0.0.1:40108/last';
    const context: ToolContext = createToolContext(workspace, {
      sandbox: busy,
      toolName: 'bash',
      timeoutMs: 30_000,
      network: permissions,
    });
    const output = String((await bashHandler.execute({ command }, context)).output);
    assert.equal(asked.length, 5, `asked ${asked.join(', ')}`);
    assert.equal(mostOpen, 1, 'one card at a time');
    assert.match(output, /already asked about 5 hosts; add it to tools\.network_allow/);
  });
});
