/** `user list`, `token list [USERNAME]`, `token revoke TOKEN_ID`: users and API tokens, read from the database. */
import { formatAge, ageSeconds } from '../gateway/admin/admin-input.js';
import { listTokens, listUsers, revokeToken } from '../gateway/admin/admin-users.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { JSON_OPTION, printJson, printList, wantsJson } from './cli-output.js';
import { listCommand, optionalPositional, requirePositionals, withAuditedStores, withStores } from './command-table.js';

export const userListCommand = listCommand({
  name: 'user list',
  usage: 'sandpiper user list [--json]',
  summary: 'list users with their admin flag and platform links',
  key: 'users',
  read: () => (stores) => listUsers(stores.users),
  table: {
    headers: ['username', 'admin', 'links', 'created', 'user_id'],
    row: (user) => [user.username, user.is_admin ? 'yes' : 'no', user.links, `${user.created}Z`, user.user_id],
    empty: 'no users (create one with: sandpiper user add USERNAME)',
  },
});

export const tokenListCommand: CliCommand = {
  name: 'token list',
  usage: 'sandpiper token list [USERNAME] [--json]',
  summary: 'list API tokens (ids, scopes, expiry; never the tokens themselves)',
  options: JSON_OPTION,
  async run(context) {
    const username = optionalPositional(context, this.usage);
    const tokens = await withStores(context, (stores) => listTokens(stores.users, username));
    const now = Date.now();
    printList(context, 'tokens', tokens, {
      headers: ['token_id', 'username', 'scopes', 'expires', 'age'],
      row: (token) => [
        token.token_id,
        token.username,
        token.scopes,
        token.expires === null ? 'never' : `${token.expires}Z${token.expired ? ' (expired)' : ''}`,
        formatAge(ageSeconds(token.created, now)),
      ],
      empty: username ? `no tokens for ${username}` : 'no tokens',
    });
    return 0;
  },
};

export const tokenRevokeCommand: CliCommand = {
  name: 'token revoke',
  usage: 'sandpiper token revoke TOKEN_ID [--json]',
  summary: 'revoke an API token (it stops working at once)',
  options: JSON_OPTION,
  async run(context) {
    const [tokenId] = requirePositionals(context, 1, this.usage) as [string];
    const result = await withAuditedStores(context, { action: 'token.revoke', target: tokenId }, (stores) =>
      revokeToken(stores.users, tokenId),
    );
    if (wantsJson(context)) printJson(context, result);
    else writeLine(context.io.stdout, `revoked token ${result.token_id}`);
    return 0;
  },
};
