/** The sandbox command line and the reach line the approval cards show. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTempWorkspace, createToolContext } from '../../../test/helpers/tool-context.js';
import { createBuiltinToolSource } from '../tools/index.js';
import { NO_EXTRA_ACCESS } from '../tools/tool-access.js';
import { buildBwrapArgs } from './bwrap-argv.js';
import { createSandbox, NO_SANDBOX } from './sandbox.js';

const BWRAP_STATUS = {
  kind: 'bwrap' as const,
  reason: 'bubblewrap',
  bwrapPath: 'bwrap',
  prlimitPath: 'prlimit',
  runsAsRoot: false,
};

describe('buildBwrapArgs', () => {
  it('hides the trees around the workspace before binding it back, and files inside it after', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'sp-bwrap-args-'));
    try {
      const data = path.join(root, 'data');
      const workspace = path.join(data, 'workspaces', 'ws1');
      mkdirSync(workspace, { recursive: true });
      const inside = path.join(workspace, 'config.toml');
      writeFileSync(inside, 'x');
      const args = buildBwrapArgs({ writable: workspace, hidden: [data, inside, path.join(root, 'missing')] });
      const at = (...needle: string[]): number =>
        args.findIndex((_, index) => needle.every((part, offset) => args[index + offset] === part));
      assert.ok(at('--tmpfs', data) < at('--bind', workspace, workspace), 'data_dir hidden first');
      assert.ok(
        at('--bind', workspace, workspace) < at('--ro-bind', '/dev/null', inside),
        'a protected file inside the workspace is hidden after the bind',
      );
      assert.equal(args.includes(path.join(root, 'missing')), false, 'paths that do not exist are left out');
      assert.ok(at('--cap-drop', 'ALL') > 0 && args.includes('--die-with-parent') && args.includes('--unshare-all'));
      assert.equal(args.includes('--share-net'), false);
      const egress = buildBwrapArgs({ writable: workspace, hidden: [], egressSocket: path.join(root, 'proxy.sock') });
      assert.equal(egress.includes('--share-net'), false, 'with egress the sandbox still has no network of its own');
      assert.ok(egress.includes(path.join(root, 'proxy.sock')), 'the proxy socket is bound in');
      assert.ok(
        egress.join(' ').includes('--setenv HTTPS_PROXY http://127.0.0.1:'),
        'clients find the relay through the proxy variables',
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('wraps the command in prlimit inside bwrap, with the process limit only inside a sandbox', () => {
    const contained = createSandbox(BWRAP_STATUS).wrap('bash', ['-c', 'true'], {
      writable: '/srv',
      limits: { cpuSeconds: 7 },
    });
    assert.equal(contained.command, 'bwrap');
    const separator = contained.args.indexOf('--');
    assert.deepEqual(contained.args.slice(separator + 1, separator + 3), ['prlimit', '--cpu=7']);
    assert.ok(contained.args.some((arg) => arg.startsWith('--nproc=')));
    const plain = createSandbox({ ...BWRAP_STATUS, kind: 'off' }).wrap('bash', ['-c', 'true'], { writable: '/srv' });
    assert.equal(plain.command, 'prlimit');
    assert.equal(
      plain.args.some((arg) => arg.startsWith('--nproc=')),
      false,
    );
    assert.deepEqual(NO_SANDBOX.wrap('bash', ['-c', 'true'], { writable: '/srv' }), {
      command: 'bash',
      args: ['-c', 'true'],
    });
  });
});

describe('approval reach line', () => {
  it('says what an approved bash or write_file call can reach', async () => {
    const workspace = await createTempWorkspace();
    try {
      const context = createToolContext(workspace.directory);
      const sandboxed = await createBuiltinToolSource({
        containment: { access: NO_EXTRA_ACCESS, sandbox: createSandbox(BWRAP_STATUS) },
      });
      assert.match(
        (await sandboxed.prepare('bash', { command: 'ls' }, context)).header,
        /— reach: sandboxed · writes: workspace only · network: off$/,
      );
      const networked = await createBuiltinToolSource({
        containment: { access: NO_EXTRA_ACCESS, sandbox: createSandbox(BWRAP_STATUS, { network: 'ask' }) },
      });
      assert.match(
        (await networked.prepare('bash', { command: 'ls' }, context)).header,
        /network: by approval \(new hosts ask you\)/,
      );
      const open = await createBuiltinToolSource({ containment: { access: NO_EXTRA_ACCESS, sandbox: NO_SANDBOX } });
      assert.match((await open.prepare('bash', { command: 'ls' }, context)).header, /reach: NOT sandboxed/);
      assert.match(
        (await open.prepare('write_file', { path: 'a.txt', content: 'x' }, context)).header,
        /reach: this file only/,
      );
      assert.doesNotMatch(
        (await open.prepare('read_file', { path: 'a.txt' }, context)).header,
        /reach/,
        'calls without a card carry no reach line',
      );
    } finally {
      await workspace.remove();
    }
  });
});
