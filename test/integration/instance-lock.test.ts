/**
 * One gateway per SQLite file (ADR 0023), through the real `sandpiper start`: a second start is refused on one line
 * naming the file and the running pid while admin commands keep working; SIGKILL leaves no stale lock; two starts racing
 * leave exactly one running; an unusable lock file fails clearly. PostgreSQL takes many instances, which `status` lists.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mintAdminToken, mintServiceToken } from '../../src/gateway/http/auth.js';
import { BinProcess, cleanEnv, runBinAsync, type BinResult } from '../helpers/run-bin.js';
import { runCliInProcess } from '../helpers/run-cli-in-process.js';
import { testPostgresUrl } from '../helpers/test-stores.js';
import { createDatabaseOn, type ThrowawayDatabase } from '../helpers/throwaway-postgres.js';

const SECRET = 'instance-lock-test-secret-instance-lock-test';
const ADMIN_SECRET = 'instance-lock-admin-secret-instance-lock-admin';
const jwt = { secret: SECRET, audience: 'turnstone-channel' };
const LISTENING = /"pid":(\d+)[^\n]*"msg":"http listening on (http:\/\/[0-9.:]+)"/;

let dir: string;
let dbFile: string;
const env = cleanEnv();
const running: BinProcess[] = [];

function start(extraEnv: Record<string, string> = {}): BinProcess {
  const child = new BinProcess(['start'], dir, { ...env, ...extraEnv });
  running.push(child);
  return child;
}

/**
 * An admin command, in this process (another process than the gateway's, as an operator's would be; a node start-up
 * less per command). The refused and racing starts go through the real bin: their exit code and stderr are the point.
 */
function adminCommand(argv: string[], extraEnv: Record<string, string> = {}): Promise<BinResult> {
  return runCliInProcess(argv, { cwd: dir, env: { ...env, ...extraEnv } });
}

/** Waits until the gateway serves HTTP and has registered itself in `services` (what `status` lists). */
async function listening(child: BinProcess): Promise<{ pid: number; url: string; adminUrl: string }> {
  const [, pid, url] = (await child.waitFor(LISTENING, 60_000)) as unknown as [string, string, string];
  const [, adminUrl] = (await child.waitFor(
    /"msg":"admin API listening on (http:\/\/[0-9.:]+)"/,
    60_000,
  )) as unknown as [string, string];
  await child.waitFor(/"msg":"registry\.registered"/, 60_000);
  return { pid: Number(pid), url, adminUrl };
}

/**
 * The refusal: exit 2, one line on stderr naming the database file and the holder, nothing on stdout. `holder` is the
 * running gateway's pid, or `starting` when the holder may still be starting: it has the lock but has not committed
 * its row yet, and the refusal names the lock file instead.
 */
function assertRefused(result: BinResult, holder: number | 'starting'): void {
  assert.equal(result.code, 2, `${result.stdout}${result.stderr}`);
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  const named = `pid ${holder === 'starting' ? '\\d+' : String(holder)} on ${hostname()}, instance channel-`;
  const who = holder === 'starting' ? `(${named}|its lock ${dbFile}-instance\\.lock is held\\))` : named;
  const pattern = `^sandpiper: another sandpiper is already running on the SQLite database ${dbFile} \\(${who}`;
  assert.match(lines[0] ?? '', new RegExp(pattern.replaceAll('/', '\\/')));
  assert.match(lines[0] ?? '', /use PostgreSQL \(database\.url\) to run several instances$/);
  assert.equal(result.stdout, '');
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sp-lock-'));
  dbFile = path.join(dir, 'data', 'sandpiper.db');
  writeFileSync(
    path.join(dir, 'config.toml'),
    `[gateway]\nhttp_port = 0\ndata_dir = "${path.join(dir, 'data')}"\n\n[auth]\njwt_secret = "${SECRET}"\nadmin_secret = "${ADMIN_SECRET}"\n\n[admin]\nlisten = "127.0.0.1:0"\n`,
  );
  assert.equal((await adminCommand(['migrate'])).code, 0);
});
after(() => {
  for (const child of running) child.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('one gateway per SQLite file', () => {
  let first: BinProcess;
  let firstUrl: string;
  let adminUrl: string;

  it('refuses a second start naming the file and the running pid, while admin commands and status keep working', async () => {
    first = start();
    const { pid, url, adminUrl: admin } = await listening(first);
    firstUrl = url;
    adminUrl = admin;
    assertRefused(await runBinAsync(['start'], dir, env), pid);
    assert.equal((await adminCommand(['user', 'add', 'alice'])).code, 0);
    const status = await adminCommand(['status', '--json']);
    assert.equal(status.code, 0, status.stderr);
    const view = JSON.parse(status.stdout) as {
      database: { engine: string };
      instances: Array<{ state: string; url: string; host: string }>;
    };
    assert.equal(view.database.engine, 'sqlite');
    assert.deepEqual(
      view.instances.map((instance) => [instance.state, instance.url, instance.host]),
      [['alive', url, hostname()]],
    );
    const table = await adminCommand(['status']);
    assert.match(
      table.stdout,
      new RegExp(`^database: SQLite ${dbFile.replaceAll('/', '\\/')}; instances: 1 alive, 0 stale`),
    );
    assert.match(
      table.stdout,
      /\nINSTANCE\s+STATE\s+HEARTBEAT\s+SHARDS\s+WORKSTREAMS\s+URL\nchannel-\S+\s+alive\s+\d+s ago\s+-\s+0\s+http:/,
    );
    assert.match(table.stdout, /\ntotals: shards 0 held, 0 expired, 0 unheld; workstream leases 0 live, 0 expired\n$/);
  });

  it('serves GET /v1/api/admin/status to an admin token only, on the admin listener', async () => {
    const statusUrl = `${adminUrl}/v1/api/admin/status`;
    assert.equal((await fetch(statusUrl)).status, 401);
    assert.equal((await fetch(statusUrl, { headers: { authorization: 'Bearer not-a-jwt' } })).status, 401);
    const forged = await mintServiceToken(
      { ...jwt, secret: 'another-secret-another-secret-another-secret' },
      { scopes: ['service'] },
    );
    assert.equal((await fetch(statusUrl, { headers: { authorization: `Bearer ${forged}` } })).status, 401);
    const notifySigned = await mintServiceToken(jwt, { scopes: ['service'] });
    assert.equal((await fetch(statusUrl, { headers: { authorization: `Bearer ${notifySigned}` } })).status, 401);
    const reader = await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:read'] });
    assert.equal(
      (await fetch(`${firstUrl}/v1/api/admin/status`, { headers: { authorization: `Bearer ${reader}` } })).status,
      404,
    );
    const response = await fetch(statusUrl, { headers: { authorization: `Bearer ${reader}` } });
    assert.equal(response.status, 200);
    const view = (await response.json()) as {
      database: { engine: string };
      instances: Array<{ url: string; state: string }>;
      totals: { alive: number };
    };
    assert.deepEqual(
      [view.database.engine, view.instances.map((instance) => instance.url), view.totals.alive],
      ['sqlite', [firstUrl], 1],
    );
  });

  it('a SIGKILLed gateway leaves no stale lock: the next start runs', async () => {
    first.kill();
    await first.exited;
    const next = start();
    const { pid } = await listening(next);
    assertRefused(await runBinAsync(['start'], dir, env), pid);
    assert.equal(await next.stop(), 0);
  });

  it('two starts at the same moment: exactly one runs, the other is refused', async () => {
    const pair = [start(), start()];
    const loser = await Promise.race(pair.map(async (child) => (await child.exited, child)));
    const winner = pair.find((child) => child !== loser) as BinProcess;
    // The winner may not have recorded itself yet when the loser reads who holds the lock.
    assertRefused({ code: await loser.exited, stdout: loser.stdout, stderr: loser.stderr }, 'starting');
    await listening(winner);
    assert.equal(await winner.stop(), 0);
    // A graceful stop gives the lock up at once.
    const again = start();
    await listening(again);
    assert.equal(await again.stop(), 0);
  });

  it('a lock file that cannot be used fails on one line naming it', async () => {
    const other = path.join(dir, 'other-data');
    // A directory where the lock file belongs: what a read-only data directory also gives (SQLITE_CANTOPEN).
    mkdirSync(path.join(other, 'sandpiper.db-instance.lock'), { recursive: true });
    const result = await runBinAsync(['start'], dir, { ...env, SANDPIPER_DATA_DIR: other });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
    assert.match(
      result.stderr,
      /^sandpiper: cannot take the instance lock \S+other-data\/sandpiper\.db-instance\.lock \(SQLITE_CANTOPEN: the directory or the file is not writable\); sandpiper start needs a writable gateway\.data_dir/,
    );
  });
});

const pgUrl = testPostgresUrl();
describe(
  'several gateways on one PostgreSQL',
  { skip: pgUrl === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
  () => {
    let database: ThrowawayDatabase | undefined;
    let url: string;

    before(async () => {
      database = await createDatabaseOn(pgUrl ?? '', 'sp_lock');
      url = database.url;
    });
    after(async () => {
      await database?.drop();
    });

    it('runs two instances and status lists both as alive', async () => {
      const pgEnv = { SANDPIPER_DATABASE_URL: url };
      const pair = [start(pgEnv), start(pgEnv)];
      const urls = await Promise.all(pair.map(async (child) => (await listening(child)).url));
      const status = await adminCommand(['status', '--json'], pgEnv);
      assert.equal(status.code, 0, status.stderr);
      const view = JSON.parse(status.stdout) as {
        database: { engine: string };
        instances: Array<{ url: string; state: string }>;
      };
      assert.equal(view.database.engine, 'postgresql');
      assert.deepEqual(
        view.instances.map((instance) => `${instance.state} ${instance.url}`).sort(),
        urls.map((entry) => `alive ${entry}`).sort(),
      );
      const codes = await Promise.all(pair.map((child) => child.stop()));
      // On a failure, what each instance logged while it stopped says why.
      assert.deepEqual(
        codes,
        [0, 0],
        pair.map((child) => child.output.split('\n').slice(-15).join('\n')).join('\n---\n'),
      );
      const after = JSON.parse((await adminCommand(['status', '--json'], pgEnv)).stdout) as {
        instances: unknown[];
      };
      assert.deepEqual(after.instances, [], 'a graceful stop deregisters');
    });
  },
);
