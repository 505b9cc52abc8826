/**
 * Tool processes die with the gateway (ADR 0013): a gateway killed with SIGKILL while bash runs leaves no process
 * behind, sandboxed or not, including what the script started in the background, so the script's later side effects
 * never happen. A script that ends normally keeps its background jobs as before.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../fakes/mcp-servers.js';
import { sleepsWith } from '../helpers/proc-scan.js';
import { repoRoot } from '../helpers/run-bin.js';

// The stand-in next to this file's own build: compiled JavaScript under scripts/run-tests.mjs, TypeScript through tsx
// when the test runs from source.
const OWN_EXTENSION = path.extname(fileURLToPath(import.meta.url));
const STAND_IN = fileURLToPath(new URL(`../helpers/lifeline-tool${OWN_EXTENSION}`, import.meta.url));
const LOADER = OWN_EXTENSION === '.ts' ? ['--import', 'tsx'] : [];
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function startGatewayStandIn(
  mode: 'auto' | 'off',
  script: string,
): { workspace: string; output: () => string; kill: () => void; exited: Promise<void> } {
  // Not under /tmp: the sandbox has a private /tmp.
  const workspace = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sp-lifeline-'));
  dirs.push(workspace);
  const child = spawn(process.execPath, [...LOADER, STAND_IN, mode, workspace, script], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { workspace, output: () => output, kill: () => child.kill('SIGKILL'), exited };
}

for (const mode of ['off', 'auto'] as const) {
  describe(`tool processes and a killed gateway (tools.sandbox = "${mode}")`, () => {
    it('SIGKILL of the gateway kills the running script and its background jobs; no side effect happens later', async () => {
      // Unique per run, so processes of another run never count.
      const marker = `97.${String(Math.floor(Math.random() * 9000) + 1000)}`;
      // The foreground and a background job each write a file once their sleep is over.
      const script = `(sleep ${marker}1; touch bg-marker) & sleep ${marker}; touch fg-marker`;
      const standIn = startGatewayStandIn(mode, `echo started; ${script}`);
      await waitFor(
        () => standIn.output().includes('started') && sleepsWith(marker).length === 2,
        'the script and its background job to run',
        30_000,
      );
      standIn.kill();
      await standIn.exited;
      await waitFor(() => sleepsWith(marker).length === 0, 'every process of the script to die', 15_000);
      assert.deepEqual(sleepsWith(marker), []);
      // Nothing that could write the files is left, so they can never appear.
      assert.equal(existsSync(path.join(standIn.workspace, 'fg-marker')), false);
      assert.equal(existsSync(path.join(standIn.workspace, 'bg-marker')), false);
    });

    it('a script that ends normally keeps its output and exit code (and, unsandboxed, its background job)', async () => {
      const standIn = startGatewayStandIn(mode, '(sleep 0.2; echo later > bg-done) & echo hello; exit 3');
      await waitFor(() => standIn.output().includes('exited 3'), 'the script to end', 30_000);
      assert.match(standIn.output(), /hello/);
      // The sandbox's own PID namespace ends with the script (as before); without one the lifeline lets the job finish.
      if (standIn.output().includes('sandbox off')) {
        await waitFor(
          () => existsSync(path.join(standIn.workspace, 'bg-done')),
          'the background job to finish',
          15_000,
        );
      }
      standIn.kill();
    });
  });
}
