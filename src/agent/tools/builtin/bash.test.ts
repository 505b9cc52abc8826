import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createTempWorkspace, createToolContext, waitFor } from '../../../../test/helpers/tool-context.js';
import { isProcessAlive } from '../run-process.js';
import { bashHandler, findBlockedPattern, sanitizeCommand } from './bash.js';

describe('bash', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  before(async () => {
    workspace = await createTempWorkspace();
  });
  after(async () => {
    await workspace.remove();
  });

  it('runs in the workstream directory and returns stdout, stderr and the exit code', async () => {
    const chunks: string[] = [];
    const context = createToolContext(workspace.directory, { onOutput: (chunk) => chunks.push(chunk) });
    const result = await bashHandler.execute({ command: 'pwd; echo oops >&2; exit 3' }, context);
    assert.equal(result.isError, false);
    assert.equal(result.output, `${workspace.directory}\noops\n[exit code: 3]`);
    assert.ok(chunks.join('').includes(workspace.directory), 'output was streamed');
  });

  it("does not hand the gateway's secrets to the command", async () => {
    process.env['SANDPIPER_TEST_FAKE_API_KEY'] = 'sk-do-not-leak';
    try {
      const result = await bashHandler.execute(
        { command: 'echo "key=${SANDPIPER_TEST_FAKE_API_KEY:-unset} path=${PATH:+set}"' },
        createToolContext(workspace.directory),
      );
      assert.match(String(result.output), /key=unset path=set/);
    } finally {
      delete process.env['SANDPIPER_TEST_FAKE_API_KEY'];
    }
  });

  it('says (no output) for a silent success', async () => {
    const result = await bashHandler.execute({ command: 'true' }, createToolContext(workspace.directory));
    assert.deepEqual(result, { output: '(no output)', isError: false });
  });

  it('needs approval with label bash and shows the first line in the header', async () => {
    const prepared = await bashHandler.prepare(
      { command: 'echo one\necho two\necho three' },
      createToolContext(workspace.directory),
    );
    assert.equal(prepared.needsApproval, true);
    assert.equal(prepared.approvalLabel, 'bash');
    assert.equal(prepared.header, '⚙ bash: echo one ... (2 more lines)');
  });

  it('refuses blocklisted commands and an empty command', async () => {
    const context = createToolContext(workspace.directory);
    for (const command of [
      'rm -rf /',
      'rm -rf /*',
      '  rm -rf /  ',
      'mkfs.ext4 /dev/sdb',
      'shutdown -h now',
      ':(){ :|:& };:',
      'dd if=/dev/zero of=/dev/sda',
    ]) {
      const prepared = await bashHandler.prepare({ command }, context);
      assert.ok(prepared.error?.startsWith('Blocked: command matches dangerous pattern'), command);
      assert.ok(prepared.header.startsWith('✗ Blocked'));
      assert.equal(prepared.needsApproval, false);
      assert.equal((await bashHandler.execute({ command }, context)).isError, true);
    }
    for (const command of [
      'ls -la',
      'git status',
      'python script.py',
      'rm file.txt',
      'rm -rf /tmp/build',
      'echo asphalt',
    ]) {
      assert.equal(findBlockedPattern(command), undefined, command);
    }
    assert.equal((await bashHandler.prepare({ command: '   ' }, context)).error, 'Error: empty command');
    assert.equal(sanitizeCommand('echo “hi” ‘x’ a–b'), 'echo "hi" \'x\' a-b');
  });

  it('on timeout kills the whole process group and says it timed out', async () => {
    const pidFile = path.join(workspace.directory, 'bg.pid');
    const context = createToolContext(workspace.directory, { timeoutMs: 1500 });
    const result = await bashHandler.execute(
      { command: `sleep 120 & echo $! > ${pidFile}; echo started; sleep 120` },
      context,
    );
    assert.equal(result.isError, true);
    assert.match(String(result.output), /^Command timed out after 1\.5s; its process group was killed\./);
    assert.match(String(result.output), /started/);
    const backgroundPid = Number((await readFile(pidFile, 'utf8')).trim());
    await waitFor(() => !isProcessAlive(backgroundPid));
  });

  it('on cancellation kills the process group and propagates the abort', async () => {
    const pidFile = path.join(workspace.directory, 'cancel.pid');
    const controller = new AbortController();
    const context = createToolContext(workspace.directory, {
      signal: controller.signal,
      onOutput: (chunk) => {
        if (chunk.includes('ready')) controller.abort();
      },
    });
    await assert.rejects(
      bashHandler.execute({ command: `sleep 120 & echo $! > ${pidFile}; echo ready; sleep 120` }, context),
      { name: 'AbortError' },
    );
    const backgroundPid = Number((await readFile(pidFile, 'utf8')).trim());
    await waitFor(() => !isProcessAlive(backgroundPid));
  });
});
