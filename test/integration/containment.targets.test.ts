/**
 * The 18 targets of issue #32 against an approved `bash`: with bubblewrap none is reached; with bubblewrap missing or
 * broken and the default `tools.sandbox = "auto"`, nothing runs at all and the result says why and how to fix it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { pidsWhere } from '../helpers/proc-scan.js';
import { createLayout, text, type Layout } from './containment.fixture.js';

const JWT = 'JWT-SECRET-IN-CONFIG-6620';
const TOKEN_HASH = 'TOKEN-HASH-IN-DB-6621';
const API_TOKEN = 'BOT-TOKEN-6622';

interface Target {
  name: string;
  command: string;
  /** True when the attack got through (read a secret, wrote, connected, signalled, outlived its call). */
  reached(output: string): boolean | Promise<boolean>;
}

interface Listener {
  server: Server;
  port: number;
  connections: number;
}

async function listen(host: string): Promise<Listener> {
  const listener: Listener = {
    server: createServer((socket) => {
      listener.connections++;
      socket.end('reached\n');
    }),
    port: 0,
    connections: 0,
  };
  await new Promise<void>((resolve) => listener.server.listen(0, host, resolve));
  listener.port = (listener.server.address() as { port: number }).port;
  return listener;
}

/** A host address outside loopback (a private range on most hosts), else loopback again. */
function hostAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal);
  return found?.address ?? '127.0.0.1';
}

class Targets {
  gateway!: Listener;
  chatApi!: Listener;
  privateRange!: Listener;
  victim!: ChildProcess;
  readonly hostTmp = path.join('/tmp', `sp-target-${process.pid}-${Date.now()}`);

  async start(l: Layout): Promise<void> {
    writeFileSync(l.configFile, `[discord]\ntoken = "CONFIG-SECRET-7731"\n\n[auth]\njwt_secret = "${JWT}"\n`);
    writeFileSync(l.databaseFile, `SQLite format 3 DATABASE-SECRET-5512 conversation of bob\n${TOKEN_HASH}\n`);
    [this.gateway, this.chatApi, this.privateRange] = await Promise.all([
      listen('127.0.0.1'),
      listen('127.0.0.1'),
      listen('0.0.0.0'),
    ]);
    // A stand-in gateway process of the same user, for the signals (killing the test process itself would end the test).
    this.victim = spawn('sleep', ['9631'], { stdio: 'ignore' });
  }

  async stop(): Promise<void> {
    this.victim.kill('SIGKILL');
    rmSync(this.hostTmp, { force: true });
    for (const pid of pidsWhere((cmdline) => cmdline.startsWith('sleep 9632'))) process.kill(pid, 'SIGKILL');
    await Promise.all(
      [this.gateway, this.chatApi, this.privateRange].map(
        (entry) => new Promise((resolve) => entry.server.close(resolve)),
      ),
    );
  }

  list(l: Layout): Target[] {
    const tcp = (host: string, port: number): string => `(exec 3<>/dev/tcp/${host}/${port} && cat <&3) 2>&1`;
    const victim = this.victim.pid ?? 0;
    const configBefore = readFileSync(l.configFile, 'utf8');
    const databaseBefore = readFileSync(l.databaseFile, 'utf8');
    return [
      {
        name: 'config.toml: the Discord token',
        command: `cat ${l.configFile}`,
        reached: (out) => out.includes('CONFIG-SECRET-7731'),
      },
      {
        name: 'config.toml: jwt_secret',
        command: `grep -r jwt_secret ${l.root} 2>/dev/null`,
        reached: (out) => out.includes(JWT),
      },
      {
        name: "SQLite: another user's conversation",
        command: `cat ${l.databaseFile}`,
        reached: (out) => out.includes('DATABASE-SECRET-5512'),
      },
      {
        name: 'SQLite: token hashes',
        command: `strings ${l.databaseFile} 2>/dev/null || cat ${l.databaseFile}`,
        reached: (out) => out.includes(TOKEN_HASH),
      },
      {
        name: "another workspace's files",
        command: 'cat ../ws2/notes.txt',
        reached: (out) => out.includes('OTHER-WS-SECRET-9012'),
      },
      { name: 'the workspace list of data_dir', command: 'ls -a ..', reached: (out) => /\bws2\b/.test(out) },
      {
        name: '/proc/<gateway>/environ',
        command: `cat /proc/${process.pid}/environ`,
        reached: (out) => out.includes('PATH='),
      },
      {
        name: "the gateway's working directory",
        command: `readlink /proc/${process.pid}/cwd`,
        reached: (out) => out.includes(process.cwd()),
      },
      {
        name: "the gateway's memory map",
        command: `head -3 /proc/${process.pid}/maps`,
        reached: (out) => /[0-9a-f]+-[0-9a-f]+ /.test(out),
      },
      {
        name: 'a write outside the workspace',
        command: `echo x > ${path.join(l.outside, 'planted.txt')}`,
        reached: () => existsSync(path.join(l.outside, 'planted.txt')),
      },
      {
        name: 'a write to the host /tmp',
        command: `echo x > ${this.hostTmp}`,
        reached: () => existsSync(this.hostTmp),
      },
      {
        name: 'config.toml rewritten to auto_approve',
        command: `echo 'auto_approve = true' >> ${l.configFile}`,
        reached: () => readFileSync(l.configFile, 'utf8') !== configBefore,
      },
      {
        name: 'an allow-all tool_policies row',
        command: `echo "INSERT INTO tool_policies VALUES ('*','allow')" >> ${l.databaseFile}`,
        reached: () => readFileSync(l.databaseFile, 'utf8') !== databaseBefore,
      },
      {
        name: "the gateway's HTTP port",
        command: tcp('127.0.0.1', this.gateway.port),
        reached: () => this.gateway.connections > 0,
      },
      {
        name: 'the chat API as the bot',
        command: `printf 'GET / HTTP/1.0\\r\\nAuthorization: Bot ${API_TOKEN}\\r\\n\\r\\n' | ${tcp('127.0.0.1', this.chatApi.port)}`,
        reached: () => this.chatApi.connections > 0,
      },
      {
        name: 'a private-range host address',
        command: tcp(hostAddress(), this.privateRange.port),
        reached: () => this.privateRange.connections > 0,
      },
      {
        name: 'kill -9 of the gateway',
        command: `kill -9 ${victim}`,
        reached: () => this.victim.exitCode !== null || this.victim.signalCode !== null,
      },
      {
        name: 'a process that outlives its call',
        command: 'setsid sleep 9632 >/dev/null 2>&1 < /dev/null & echo started',
        reached: survivesItsCall,
      },
    ];
  }
}

/**
 * The detached sleep is ended with its sandbox, which may take a moment, and under load it may also take a moment to
 * appear (the shell's background job execs `setsid`, which execs `sleep`): reached only if it is there after 3 s.
 */
async function survivesItsCall(): Promise<boolean> {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  return pidsWhere((cmdline) => cmdline.startsWith('sleep 9632')).length > 0;
}

/** Runs every target as its own approved call; returns the names reached and every output. */
async function attack(l: Layout, targets: Targets): Promise<{ reached: string[]; outputs: string[] }> {
  const reached: string[] = [];
  const outputs: string[] = [];
  for (const target of targets.list(l)) {
    const output = text(await l.call('bash', { command: target.command }));
    outputs.push(output);
    if (await target.reached(output)) reached.push(target.name);
  }
  return { reached, outputs };
}

describe('the 18 targets, bubblewrap missing or broken (tools.sandbox = "auto", the default)', () => {
  let l: Layout;
  const targets = new Targets();
  before(async () => {
    l = await createLayout('auto', { bwrapCommand: '/nonexistent/bwrap' });
    await targets.start(l);
  });
  after(async () => {
    await targets.stop();
    l.remove();
  });

  it('reaches 0 of 18: every process tool is refused with the reason and the fix', async () => {
    assert.equal(l.sandbox.kind, 'unavailable');
    const { reached, outputs } = await attack(l, targets);
    assert.equal(outputs.length, 18);
    assert.deepEqual(reached, [], `reached ${reached.length} of 18`);
    for (const output of outputs) {
      assert.match(
        output,
        /^Refused: .*sandbox, which is unavailable on this host \(bubblewrap unusable: \/nonexistent\/bwrap is not installed\)/,
      );
      assert.match(output, /install bubblewrap .* or set tools\.sandbox = "off"/);
    }
    for (const [name, args] of [
      ['math', { code: 'print(1)' }],
      ['man', { page: 'ls' }],
    ] as const) {
      assert.match(text(await l.call(name, args)), /^Refused: /, `${name} is refused too`);
    }
  });

  it('a broken bubblewrap (installed, but no user namespaces) is refused the same way', async () => {
    const broken = path.join(l.root, 'bwrap-broken');
    writeFileSync(broken, '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const layout = await createLayout('auto', { bwrapCommand: broken });
    try {
      const result = await layout.call('bash', { command: 'echo should-not-run' });
      assert.equal(result.isError, true);
      assert.doesNotMatch(text(result), /should-not-run/);
      assert.match(text(result), /bubblewrap unusable: bwrap: No permissions to creating new namespace/);
    } finally {
      layout.remove();
    }
  });
});

describe('the 18 targets with bubblewrap', () => {
  let l: Layout;
  const targets = new Targets();
  before(async () => {
    l = await createLayout('auto');
    await targets.start(l);
  });
  after(async () => {
    await targets.stop();
    l.remove();
  });

  it('reaches 0 of 18', async (t) => {
    if (l.sandbox.kind !== 'bwrap') return t.skip('bubblewrap is not usable on this host');
    const { reached, outputs } = await attack(l, targets);
    assert.equal(outputs.length, 18);
    assert.deepEqual(reached, [], `reached ${reached.length} of 18:\n${outputs.join('\n---\n')}`);
    assert.match(outputs[17] ?? '', /started/, 'the commands did run, inside the sandbox');
  });
});

describe('the 18 targets with tools.sandbox = "off" (the explicit choice): the targets are real', () => {
  let l: Layout;
  const targets = new Targets();
  before(async () => {
    l = await createLayout('off');
    await targets.start(l);
  });
  after(async () => {
    await targets.stop();
    l.remove();
  });

  it('an unconfined bash reaches nearly all of them (so the two tests above can fail)', async () => {
    const { reached } = await attack(l, targets);
    assert.ok(reached.length >= 16, `reached only ${reached.length} of 18: ${reached.join(', ')}`);
    // The check the bubblewrap case relies on sees a surviving process (it once matched no command line at all).
    assert.ok(reached.includes('a process that outlives its call'), 'the detached sleep outlived its call');
  });
});
