/** `sandpiper doctor`'s sandbox line: the same fix start-up logs when bubblewrap does not work. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_FIX } from '../agent/sandbox/detect-sandbox.js';
import { checkSandbox, setSandboxProbe } from './sandbox-check.js';

describe('checkSandbox', () => {
  it('warns that the process tools are refused and prints the fix', async () => {
    setSandboxProbe(() =>
      Promise.resolve({
        available: false,
        detail: 'bubblewrap unusable: bwrap: No permissions to create new namespace',
      }),
    );
    const result = await checkSandbox();
    assert.equal(result.status, 'warn');
    assert.match(
      result.detail,
      /No permissions to create new namespace; with tools\.sandbox = "auto" bash, math, man, watch commands and sandboxed MCP servers are refused/,
    );
    assert.equal(result.fix, SANDBOX_FIX);
  });

  it('is ok with a working bubblewrap', async () => {
    setSandboxProbe(() => Promise.resolve({ available: true, detail: 'bubblewrap' }));
    assert.deepEqual(await checkSandbox(), { name: 'sandbox', status: 'ok', detail: 'bubblewrap' });
  });
});
