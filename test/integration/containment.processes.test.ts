/** Escape attempts from bash (and math, man) inside the bubblewrap sandbox, and the weaker guarantees with tools.sandbox = "off". */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { runProcess } from '../../src/agent/tools/run-process.js';
import { pidsWhere } from '../helpers/proc-scan.js';
import { waitFor } from '../helpers/tool-context.js';
import { createLayout, leaked, text, type Layout } from './containment.fixture.js';

/** Pids whose command line is, or runs, `marker` (a unique sleep duration): the sleep itself and any bwrap around it. */
const processesWith = (marker: string): number[] =>
  pidsWhere((cmdline) => cmdline.includes(marker) && !cmdline.includes('bash -c'));

describe('bash in the sandbox (tools.sandbox = "auto")', () => {
  let l: Layout;
  let server: Server;
  let port = 0;
  let connections = 0;
  before(async () => {
    l = await createLayout('auto');
    server = createServer((socket) => {
      connections++;
      socket.end('gateway-port\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    l.remove();
    await new Promise((resolve) => server.close(resolve));
  });
  const bash = (command: string) => l.call('bash', { command });
  const skip = (): boolean => l.sandbox.kind !== 'bwrap';

  it('cannot read the config file, the database or another workspace', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const result = await bash(
      `cat ${l.configFile}; cat ${l.databaseFile}; cat ../ws2/notes.txt 2>/dev/null; ls -a ..; grep -r SECRET ${l.root} 2>&1 | head`,
    );
    // The rest of the host stays readable (read-only system): the "outside" file is visible by design.
    assert.deepEqual(
      leaked(text(result)).filter((name) => name !== 'outside'),
      [],
      text(result),
    );
    assert.match(text(result), /ws1/);
    assert.doesNotMatch(text(result), /ws2/, 'other workspaces are not even listed');
    assert.equal(result.isError, false, 'the model gets a normal result with the errors in it');
  });

  it('cannot see or signal the gateway process, nor read its environment', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const result = await bash(
      `cat /proc/${process.pid}/environ; kill -9 ${process.pid}; echo "kill=$?"; ls /proc | grep -c '^[0-9]'`,
    );
    assert.match(text(result), /kill=1/);
    assert.ok(
      Number(/^(\d+)$/m.exec(text(result))?.[1] ?? 99) < 10,
      `only the sandbox's own processes are visible: ${text(result)}`,
    );
    assert.doesNotMatch(text(result), /PATH=/);
  });

  it('cannot write outside the workspace, but can write inside it', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const result = await bash(
      `echo x > ${path.join(l.outside, 'planted.txt')}; echo y > ${l.configFile}; touch /usr/planted; echo ok > made-here.txt; cat made-here.txt`,
    );
    assert.equal(existsSync(path.join(l.outside, 'planted.txt')), false);
    assert.match(readFileSync(l.configFile, 'utf8'), /CONFIG-SECRET/);
    assert.equal(existsSync('/usr/planted'), false);
    assert.equal(readFileSync(path.join(l.workspace, 'made-here.txt'), 'utf8'), 'ok\n');
    assert.match(text(result), /Read-only file system|Permission denied|No such file/);
  });

  it('has no network: the gateway port on loopback is unreachable', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const result = await bash(`(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3) 2>&1; echo "rc=$?"`);
    assert.doesNotMatch(text(result), /gateway-port/);
    assert.equal(connections, 0);
  });

  it('a huge output comes back capped and the call still answers', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const result = await bash('head -c 30000000 /dev/zero | tr "\\0" a');
    assert.match(text(result), /output capped/);
    assert.ok(text(result).length < 11_000_000);
  });

  it('a file larger than the file size limit is stopped', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const result = await bash('head -c 40000000 /dev/zero > big.bin; ls -l big.bin');
    assert.match(text(result), /File size limit|file size limit/);
  });

  it('a background process does not outlive its call', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const result = await bash(
      'setsid sleep 987 >/dev/null 2>&1 < /dev/null & nohup sleep 988 >/dev/null 2>&1 & echo started',
    );
    assert.match(text(result), /started/);
    await waitFor(() => processesWith('sleep 987').length === 0 && processesWith('sleep 988').length === 0);
  });

  it('dies with its parent: killing the caller kills the sandbox', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const wrapped = l.sandbox.wrap('sleep', ['986'], { writable: l.workspace });
    // A stand-in for the gateway: a parent that starts the sandbox and is then killed without any clean-up.
    const parent = spawn('sh', ['-c', '"$@" & wait', 'sh', wrapped.command, ...wrapped.args], { stdio: 'ignore' });
    // Wait for the sleep itself (not just the shell naming it), so the sandbox is fully up before the kill.
    await waitFor(() =>
      processesWith('sleep 986').some((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\0')),
    );
    parent.kill('SIGKILL');
    await waitFor(() => processesWith('sleep 986').length === 0);
  });

  it('the process limit stops a fork flood (run as an unprivileged user; uid 0 is exempt in the kernel)', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const wrapped = l.sandbox.wrap(
      'bash',
      ['-c', 'for i in $(seq 200); do sleep 5 & done 2>&1 | tail -1; echo "visible=$(ls /proc | grep -c "^[0-9]")"'],
      { writable: l.workspace },
    );
    const asNobody = process.getuid?.() === 0;
    if (asNobody) {
      chmodSync(l.root, 0o711);
      chmodSync(l.workspace, 0o777);
    }
    const [command, args] = asNobody
      ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', wrapped.command, ...wrapped.args]]
      : [wrapped.command, wrapped.args];
    const outcome = await runProcess(command as string, args as string[], {
      cwd: l.workspace,
      signal: AbortSignal.timeout(60_000),
    });
    assert.match(outcome.stdout + outcome.stderr, /fork: /, 'bash reports the refused forks');
    const visible = Number(/visible=(\d+)/.exec(outcome.stdout)?.[1] ?? '999');
    assert.ok(visible <= 64 + 5, `at most the limit of processes ran: ${visible}`);
  });

  it('math and man still work inside the sandbox', async (t) => {
    if (skip()) return t.skip('bubblewrap is not usable on this host');
    const math = await l.call('math', { code: 'print(6 * 7)' });
    assert.equal(text(math), '42');
    const man = await l.call('man', { page: 'ls' });
    assert.match(text(man), /NAME|No man or info page|not available/);
  });
});

describe('bash without a sandbox (tools.sandbox = "off"): the documented weaker guarantees', () => {
  let l: Layout;
  before(async () => {
    l = await createLayout('off');
  });
  after(() => l.remove());

  it('reads what the gateway user can read: the config file is exposed once bash is approved', async () => {
    const result = await l.call('bash', { command: `cat ${l.configFile}` });
    assert.deepEqual(leaked(text(result)), ['config'], 'without a sandbox the approval card is the only boundary');
  });

  it('a detached background process survives its call', async () => {
    await l.call('bash', { command: 'setsid sleep 985 >/dev/null 2>&1 < /dev/null & echo started' });
    await waitFor(() => processesWith('sleep 985').length > 0);
    for (const pid of processesWith('sleep 985')) process.kill(pid, 'SIGKILL');
  });

  it('the file tools stay confined all the same', async () => {
    const result = await l.call('read_file', { path: l.configFile });
    assert.equal(result.isError, true);
    assert.deepEqual(leaked(text(result)), []);
  });
});
