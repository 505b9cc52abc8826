/** A stdio MCP server with `sandbox = true` runs in the tool sandbox; without a sandbox it is not started at all. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import { createSandbox } from '../../src/agent/sandbox/sandbox.js';
import { FILESYSTEM, stdioSpec, toolContext, waitFor } from '../fakes/mcp-servers.js';
import { createLayout, leaked, SECRETS, text, type Layout } from './containment.fixture.js';

describe('sandboxed stdio MCP servers', () => {
  let l: Layout;
  let manager: McpManager | undefined;
  let unsandboxed: McpManager | undefined;
  before(async () => {
    l = await createLayout('auto');
  });
  after(async () => {
    await manager?.shutdown();
    await unsandboxed?.shutdown();
    l.remove();
  });

  it('serves its tools but cannot read the gateway files its own allow-list would permit', async (t) => {
    if (l.sandbox.kind !== 'bwrap') return t.skip('bubblewrap is not usable on this host');
    // server-filesystem is told it may read the whole layout; the sandbox still hides the config file.
    manager = createMcpManager({
      servers: [stdioSpec('fs', [FILESYSTEM, l.root], { sandbox: true })],
      parentEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
      sandbox: { sandbox: l.sandbox, workDir: (name) => path.join(l.root, 'mcp', name) },
    });
    await manager.start();
    await waitFor(
      () => manager?.status().perServer[0]?.connected === true || (manager?.status().perServer[0]?.error ?? '') !== '',
      'sandboxed server connected',
    );
    assert.equal(manager.status().perServer[0]?.error, '');
    const config = await manager.callTool('mcp__fs__read_text_file', { path: l.configFile }, toolContext());
    assert.deepEqual(leaked(text(config)), [], text(config));
    const other = await manager.callTool(
      'mcp__fs__read_text_file',
      { path: path.join(l.otherWorkspace, 'notes.txt') },
      toolContext(),
    );
    assert.ok(!text(other).includes(SECRETS.otherWorkspace), text(other));
    const guide = await manager.callTool(
      'mcp__fs__read_text_file',
      { path: path.join(l.readRoot, 'guide.md') },
      toolContext(),
    );
    assert.match(text(guide), /read-only guide/, 'the rest of the host stays readable');
    assert.ok(existsSync(path.join(l.root, 'mcp', 'fs')), 'its own writable folder was made');
  });

  it('refuses to start a sandbox = true server when bubblewrap does not work, and says how to fix it', async () => {
    const unavailable = createSandbox({
      kind: 'unavailable',
      reason: 'bubblewrap unusable: bwrap is not installed',
      runsAsRoot: false,
    });
    unsandboxed = createMcpManager({
      servers: [stdioSpec('fs2', [FILESYSTEM, l.root], { sandbox: true })],
      parentEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
      sandbox: { sandbox: unavailable, workDir: (name) => path.join(l.root, 'mcp', name) },
    });
    await unsandboxed.start();
    await waitFor(() => (unsandboxed?.status().perServer[0]?.error ?? '') !== '', 'start error');
    const status = unsandboxed.status().perServer[0];
    assert.equal(status?.connected, false);
    assert.match(
      status?.error ?? '',
      /no sandbox is available on this host \(bubblewrap unusable: bwrap is not installed\); not started\. To fix it, install bubblewrap/,
    );
  });
});
