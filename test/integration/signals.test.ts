/**
 * Signals through each launcher: SIGTERM or SIGINT to the process a supervisor holds (node, `npm start`, `npx`) stops the
 * gateway gracefully and leaves no process behind; a second signal exits at once; a stuck shutdown ends after
 * gateway.shutdown_timeout_s. The installed-package launcher is covered in package-install.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { mintServiceToken } from '../../src/gateway/http/auth.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { assertStopsGracefully, launch, waitRunning, writeGatewayConfig, type Launched } from '../helpers/launchers.js';
import { binPath, cleanEnv, repoRoot } from '../helpers/run-bin.js';

const dirs: string[] = [];
const launches: Launched[] = [];
after(() => {
  // The whole process group (launches are detached): a gateway that npx or sh started outlives its launcher, and
  // its stdio pipes would hold this test process open.
  for (const { child } of launches) killGroup(child.pid);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function setUp(extra = ''): { dir: string; config: string; database: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sp-signals-'));
  dirs.push(dir);
  return { dir, config: writeGatewayConfig(dir, extra), database: path.join(dir, 'data', 'sandpiper.db') };
}

function track(launched: Launched): Launched {
  launches.push(launched);
  return launched;
}

/** npm without network or update checks, with its cache in the test folder. */
function npmEnv(dir: string): NodeJS.ProcessEnv {
  return {
    ...cleanEnv(),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_cache: path.join(dir, '.npm'),
  };
}

const JWT_SECRET = 'signals-test-secret-0123456789abcdef';
/** Config lines that let a held notify request pass authentication, so the server must wait for its body. */
const AUTH_CONFIG = `\n[auth]\njwt_secret = "${JWT_SECRET}"\n`;

/**
 * Opens an authenticated request whose body never arrives: the route waits for the body, so the HTTP server's
 * graceful close waits for it (5 s grace). Without a valid token the route would answer 401 at once.
 */
async function holdRequestOpen(url: string): Promise<() => void> {
  const { hostname, port } = new URL(url);
  const token = await mintServiceToken({ secret: JWT_SECRET, audience: 'turnstone-channel' });
  const socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  socket.write(
    `POST /v1/api/notify HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
  );
  // "100 Continue" means the server has taken the request in: it is in flight, not an idle connection.
  await waitFor(() => answer.includes('100 Continue'), 'the server to accept the request');
  socket.write('{"message":');
  socket.on('error', () => undefined);
  return () => socket.destroy();
}

describe('signals through each launcher', () => {
  it('node bin/sandpiper.js start: SIGTERM stops gracefully and exits 0', async () => {
    const { dir, config, database } = setUp();
    const launched = track(launch(process.execPath, [binPath, 'start', '--config', config], dir, cleanEnv()));
    const { code } = await assertStopsGracefully(launched, 'SIGTERM', database);
    assert.equal(code, 0, launched.output().slice(-2000));
  });

  it('node bin/sandpiper.js start: SIGINT stops gracefully and exits 0', async () => {
    const { dir, config, database } = setUp();
    const launched = track(launch(process.execPath, [binPath, 'start', '--config', config], dir, cleanEnv()));
    const { code } = await assertStopsGracefully(launched, 'SIGINT', database);
    assert.equal(code, 0, launched.output().slice(-2000));
  });

  it('npm start: SIGTERM to npm reaches the gateway (the script execs node)', async () => {
    const { dir, config, database } = setUp();
    const launched = track(launch('npm', ['start', '--', '--config', config], repoRoot, npmEnv(dir)));
    await assertStopsGracefully(launched, 'SIGTERM', database);
  });

  it('npx --prefix <checkout> sandpiper start: SIGTERM to npx stops the gateway too', async () => {
    const { dir, config, database } = setUp();
    const launched = track(
      launch('npx', ['--prefix', repoRoot, 'sandpiper', 'start', '--config', config], dir, npmEnv(dir)),
    );
    await assertStopsGracefully(launched, 'SIGTERM', database);
  });

  it('npx sandpiper start in the checkout: Ctrl-C (SIGINT to the process group) stops the gateway', async () => {
    // SIGINT to npx's pid alone is held back by the `sh -c` npm runs the bin in (a shell waiting for a job defers
    // SIGINT); a terminal's Ctrl-C and systemd's stop signal reach every process of the group, the gateway included.
    const { dir, config, database } = setUp();
    const launched = track(launch('npx', ['sandpiper', 'start', '--config', config], repoRoot, npmEnv(dir)));
    await assertStopsGracefully(launched, 'SIGINT', database, 'group');
  });

  it('node bin/sandpiper.js start: SIGTERM to the whole process group (a terminal, systemd) stops it gracefully', async () => {
    const { dir, config, database } = setUp();
    const launched = track(launch(process.execPath, [binPath, 'start', '--config', config], dir, cleanEnv()));
    const { code } = await assertStopsGracefully(launched, 'SIGTERM', database, 'group');
    assert.equal(code, 0, 'one signal to the group is one signal, not a second one');
  });

  it('a second signal exits at once while the shutdown still waits', async () => {
    const { dir, config } = setUp(AUTH_CONFIG);
    const launched = track(launch(process.execPath, [binPath, 'start', '--config', config], dir, cleanEnv()));
    const { url } = await waitRunning(launched);
    const release = await holdRequestOpen(url);
    try {
      launched.child.kill('SIGTERM');
      await waitFor(() => launched.output().includes('"msg":"shutting down"'), 'the shutdown to begin');
      launched.child.kill('SIGTERM');
      const { code } = await launched.closed;
      assert.equal(code, 143);
      assert.match(launched.output(), /sandpiper: second SIGTERM, exiting without waiting/);
      assert.doesNotMatch(launched.output(), /"msg":"stopped"/);
    } finally {
      release();
    }
  });

  it('a shutdown that does not finish within gateway.shutdown_timeout_s exits 1 and says so', async () => {
    const { dir, config } = setUp(`shutdown_timeout_s = 0.5${AUTH_CONFIG}`);
    const launched = track(launch(process.execPath, [binPath, 'start', '--config', config], dir, cleanEnv()));
    const { url } = await waitRunning(launched);
    const release = await holdRequestOpen(url);
    try {
      launched.child.kill('SIGTERM');
      const { code } = await launched.closed;
      assert.equal(code, 1, launched.output().slice(-2000));
      assert.match(
        launched.output(),
        /shutdown did not finish within 0.5 s \(gateway.shutdown_timeout_s\); exiting anyway/,
      );
    } finally {
      release();
    }
  });
});
