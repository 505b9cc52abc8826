/**
 * `sandpiper slack installs list | remove | rekey` in-process (runCli, as the bin runs them): installs are listed without tokens, removed
 * (audited), a missing one is exit 1 and a malformed id exit 2; after a key rotation `rekey` re-encrypts the tokens
 * and the new key alone opens them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { slackInstallations, slackTokenCipher } from '../../src/main-slack.js';
import { createKnex, createStores, runMigrations } from '../../src/storage/index.js';
import { runCliInProcess } from '../helpers/run-cli-in-process.js';

const OLD_KEY = 'old-slack-token-key-0123456789';
const NEW_KEY = 'new-slack-token-key-9876543210';
const TOKEN = 'xoxb-T0CLI1-secret-token';

let dir: string;
const run = (...args: string[]): ReturnType<typeof runCliInProcess> =>
  runCliInProcess([...args, '--config', path.join(dir, 'config.toml')]);
const writeConfig = (slack: string): void =>
  writeFileSync(
    path.join(dir, 'config.toml'),
    `[gateway]\ndata_dir = "${path.join(dir, 'data')}"\n\n[auth]\njwt_secret = "slack-installs-cli-secret-0123456789"\n\n[slack]\n${slack}\n`,
  );
const withDatabase = async <T>(work: (stores: ReturnType<typeof createStores>) => Promise<T>): Promise<T> => {
  const knex = createKnex(`sqlite:${path.join(dir, 'data', 'sandpiper.db')}`);
  try {
    await runMigrations(knex);
    return await work(createStores(knex));
  } finally {
    await knex.destroy();
  }
};
const install = (teamId: string): Parameters<ReturnType<typeof slackInstallations>['save']>[0] => ({
  teamId,
  teamName: `team ${teamId}`,
  enterpriseId: undefined,
  appId: 'A0001',
  botUserId: 'U0BOT',
  botId: 'B0001',
  botToken: TOKEN,
  botScopes: ['chat:write'],
  installerUserId: 'U0ADMIN',
});

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'sp-slack-installs-'));
  writeConfig(`token_key = "${OLD_KEY}"`);
  mkdirSync(path.join(dir, 'data'));
  await withDatabase(async (stores) => {
    const store = slackInstallations(
      stores.slackInstalls,
      slackTokenCipher({ token_key: OLD_KEY, token_key_previous: [] }),
    );
    for (const team of ['T0CLI1', 'T0CLI2']) await store.save(install(team));
  });
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('slack installs commands', () => {
  it('lists installs without tokens, removes one (audited), refuses a missing or malformed id', async () => {
    const listed = await run('slack', 'installs', 'list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.doesNotMatch(listed.stdout, /xoxb-|v1:/);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { installs: Array<{ team_id: string }> }).installs.map((entry) => entry.team_id),
      ['T0CLI1', 'T0CLI2'],
    );
    assert.equal((await run('slack', 'installs', 'remove', 'T0CLI2')).code, 0);
    const table = (await run('slack', 'installs', 'list')).stdout;
    assert.match(table, /T0CLI1/);
    assert.doesNotMatch(table, /T0CLI2/);
    const missing = await run('slack', 'installs', 'remove', 'T0CLI2');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no Slack install/);
    const malformed = await run('slack', 'installs', 'remove', 'not a team');
    assert.equal(malformed.code, 2);
    const audit = await run('audit', '--json');
    assert.match(audit.stdout, /slack\.installs\.remove/);
  });

  it('re-encrypts the tokens after a key rotation', async () => {
    writeConfig(`token_key = "${NEW_KEY}"\ntoken_key_previous = ["${OLD_KEY}"]`);
    const rekeyed = await run('slack', 'installs', 'rekey');
    assert.equal(rekeyed.code, 0, rekeyed.stderr);
    assert.match(rekeyed.stdout, /re-encrypted 1 token/);
    const opened = await withDatabase(async (stores) =>
      slackInstallations(stores.slackInstalls, slackTokenCipher({ token_key: NEW_KEY, token_key_previous: [] })).get(
        'T0CLI1',
      ),
    );
    assert.equal(opened?.botToken, TOKEN, 'the new key alone opens the token');
  });
});
