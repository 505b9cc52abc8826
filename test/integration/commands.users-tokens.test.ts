/**
 * `user list`, `token list | revoke` in-process (runCli, as the bin runs them) on a fresh database: tables and JSON,
 * tokens never shown, bad input exit 2 and a missing user or token exit 1 on one line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertFailure, assertUsage, json, startAdminCli, type AdminCli } from '../helpers/admin-cli.js';

let admin: AdminCli;
const cli = (...args: string[]): ReturnType<AdminCli['cli']> => admin.cli(...args);

before(async () => {
  admin = await startAdminCli('sp-admin-users-');
});
after(() => admin.close());

describe('user and token commands', () => {
  it('lists users with their admin flag and links, as a table and as JSON', async () => {
    assert.match((await cli('user', 'list')).stdout, /^no users/);
    assert.equal((await cli('user', 'add', 'alice', '--admin')).code, 0);
    assert.equal((await cli('user', 'add', 'bob')).code, 0);
    assert.equal((await cli('link', 'discord', '400000000000000001', 'bob')).code, 0);
    const table = await cli('user', 'list');
    assert.equal(table.code, 0);
    assert.match(table.stdout, /^USERNAME\s+ADMIN\s+LINKS/);
    assert.match(table.stdout, /\nalice\s+yes\s+-/);
    const { users } = json<{ users: Array<{ username: string; is_admin: boolean; links: string[] }> }>(
      await cli('user', 'list', '--json'),
    );
    assert.deepEqual(
      users.map((user) => [user.username, user.is_admin, user.links]),
      [
        ['alice', true, []],
        ['bob', false, ['discord:400000000000000001']],
      ],
    );
    assertUsage(await cli('user', 'list', 'extra'), /unexpected argument "extra"/);
  });

  it('lists tokens without revealing them and revokes one', async () => {
    const created = await cli('token', 'create', 'bob', '--scopes', 'read', '--expires', '7');
    const token = created.stdout.trim().split('\n').pop() as string;
    assert.equal((await cli('token', 'create', 'alice')).code, 0);
    const all = json<{ tokens: Array<{ token_id: string; username: string; scopes: string[]; expired: boolean }> }>(
      await cli('token', 'list', '--json'),
    );
    assert.deepEqual(all.tokens.map((entry) => entry.username).sort(), ['alice', 'bob']);
    const bobs = json<{ tokens: Array<{ token_id: string; scopes: string[]; expires: string | null }> }>(
      await cli('token', 'list', 'bob', '--json'),
    );
    assert.equal(bobs.tokens.length, 1);
    assert.deepEqual(bobs.tokens[0]?.scopes, ['read']);
    assert.match(bobs.tokens[0]?.expires ?? '', /^\d{4}-/);
    const table = await cli('token', 'list');
    assert.ok(!`${table.stdout}${JSON.stringify(all)}`.includes(token), 'the token itself is never shown');
    const tokenId = bobs.tokens[0]?.token_id as string;
    assert.match(table.stdout, new RegExp(`${tokenId}\\s+bob\\s+read`));
    assertFailure(await cli('token', 'list', 'nobody'), /no user named "nobody"/);
    assert.match((await cli('token', 'revoke', tokenId)).stdout, new RegExp(`revoked token ${tokenId}`));
    assertFailure(await cli('token', 'revoke', tokenId), /no token with id/);
    assertUsage(await cli('token', 'revoke'), /usage: sandpiper token revoke TOKEN_ID/);
    assertUsage(await cli('token', 'revoke', 'bad id!'), /token_id must be the id shown by token list/);
    assert.match((await cli('token', 'list', 'bob')).stdout, /^no tokens for bob/);
  });
});
