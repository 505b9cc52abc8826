/** The host probe: what it reports for a working and a broken bubblewrap, and that a process probes only once. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectSandbox } from './detect-sandbox.js';

describe('detectSandbox', { skip: process.platform !== 'linux' && 'bubblewrap needs Linux' }, () => {
  let dir: string;
  /** A stand-in command that records each run in `<name>.runs` and exits with `code`. */
  const fakeCommand = (name: string, code: number): string => {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\necho run >> "${file}.runs"\necho "${name} refused" >&2\nexit ${code}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const runs = (command: string): number => {
    try {
      return readFileSync(`${command}.runs`, 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sp-detect-sandbox-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('probes the host once per process for the same commands; other commands are probed on their own', async () => {
    const bwrap = fakeCommand('bwrap-ok', 0);
    const prlimit = fakeCommand('prlimit-ok', 0);
    const setpriv = fakeCommand('setpriv-ok', 0);
    const options = { mode: 'auto', bwrapCommand: bwrap, prlimitCommand: prlimit, setprivCommand: setpriv } as const;
    const [first, second] = await Promise.all([detectSandbox(options), detectSandbox(options)]);
    const third = await detectSandbox(options);
    assert.deepEqual(first, {
      kind: 'bwrap',
      reason: 'bubblewrap',
      bwrapPath: bwrap,
      prlimitPath: prlimit,
      setprivPath: setpriv,
      runsAsRoot: process.getuid?.() === 0,
    });
    assert.deepEqual(second, first);
    assert.deepEqual(third, first);
    assert.deepEqual([runs(bwrap), runs(prlimit), runs(setpriv)], [1, 1, 1], 'each command ran once');

    const broken = fakeCommand('bwrap-broken', 1);
    const refused = await detectSandbox({ ...options, bwrapCommand: broken });
    assert.equal(refused.kind, 'unavailable');
    assert.equal(refused.reason, 'bubblewrap unusable: bwrap-broken refused');
    assert.equal(runs(broken), 1);
  });

  it('says a missing bubblewrap is not installed, and tools.sandbox = "off" never runs it', async () => {
    const missing = path.join(dir, 'no-such-bwrap');
    const status = await detectSandbox({ mode: 'bwrap', bwrapCommand: missing });
    assert.equal(status.kind, 'unavailable');
    assert.equal(status.reason, `bubblewrap unusable: ${missing} is not installed`);
    const bwrap = fakeCommand('bwrap-unused', 0);
    const off = await detectSandbox({ mode: 'off', bwrapCommand: bwrap });
    assert.equal(off.kind, 'off');
    assert.equal(runs(bwrap), 0);
  });
});
