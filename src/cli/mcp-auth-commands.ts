/**
 * `mcp auth list | revoke | rekey`: per-user OAuth authorizations of MCP servers, in the database (tokens are
 * encrypted there and never printed). A revoked user's next call asks them for a new authorization.
 */
import { createTokenCipher } from '../agent/mcp/mcp-token-cipher.js';
import { UsageError } from '../shared/errors.js';
import type { Stores } from '../storage/index.js';
import { writeLine, type CliCommand, type CliContext } from './cli-context.js';
import { JSON_OPTION, printList } from './cli-output.js';
import { found, rekeyCommand, requirePositionals, withAuditedStores, withStores } from './command-table.js';
import { callAdmin } from './gateway-client.js';

const USER_OPTION = { user: { type: 'string' as const } };

/** `--user NAME` as our user id (undefined without the flag); an unknown name is an error. */
async function userIdOf(context: CliContext, stores: Stores): Promise<string | undefined> {
  const name = context.flags['user'];
  if (name === undefined) return undefined;
  if (typeof name !== 'string' || name.trim() === '') throw new UsageError('--user takes a username');
  return found(await stores.users.getUserByUsername(name.trim()), `no user named ${name.trim().slice(0, 64)}`).userId;
}

export const mcpAuthListCommand: CliCommand = {
  name: 'mcp auth list',
  usage: 'sandpiper mcp auth list [SERVER] [--user NAME] [--json]',
  summary: 'list who has authorized which OAuth MCP server (no tokens are shown)',
  options: { ...JSON_OPTION, ...USER_OPTION },
  async run(context) {
    if (context.positionals.length > 1) throw new UsageError(`usage: ${this.usage}`);
    const server = context.positionals[0]?.trim() || undefined;
    const entries = await withStores(context, async (stores) => {
      const userId = await userIdOf(context, stores);
      const rows = await stores.mcpCredentials.list({
        kind: 'tokens',
        ...(server ? { server } : {}),
        ...(userId ? { userId } : {}),
      });
      const names = new Map((await stores.users.listUsers()).map((user) => [user.userId, user.username]));
      return rows.map((row) => ({
        server: row.server,
        user: names.get(row.userId) ?? row.userId,
        updated: row.updated,
      }));
    });
    printList(context, 'authorizations', entries, {
      headers: ['server', 'user', 'updated'],
      row: (entry) => [entry.server, entry.user, entry.updated],
      empty: 'no OAuth authorizations stored',
    });
    return 0;
  },
};

export const mcpAuthRevokeCommand: CliCommand = {
  name: 'mcp auth revoke',
  usage: 'sandpiper mcp auth revoke [SERVER] [--user NAME]',
  summary: "forget stored OAuth tokens: one server's, one user's, or one user's on one server",
  options: USER_OPTION,
  async run(context) {
    if (context.positionals.length > 1) throw new UsageError(`usage: ${this.usage}`);
    const server = context.positionals[0]?.trim() || undefined;
    if (server === undefined && context.flags['user'] === undefined)
      throw new UsageError(`name a server, a user, or both; usage: ${this.usage}`);
    const change = {
      action: 'mcp.auth.revoke',
      target: server ?? '*',
      detail: context.flags['user'] === undefined ? 'every user' : 'one user',
    };
    const count = await withAuditedStores(context, change, async (stores) =>
      stores.mcpCredentials.deleteTokens(server, await userIdOf(context, stores)),
    );
    writeLine(
      context.io.stdout,
      `revoked ${count} authorization${count === 1 ? '' : 's'}; the next call asks the user for a new one`,
    );
    return 0;
  },
};

export const mcpAuthRekeyCommand = rekeyCommand({
  name: 'mcp auth rekey',
  usage: 'sandpiper mcp auth rekey',
  summary: 'after a mcp.token_key rotation: re-encrypt stored OAuth credentials with the new key',
  options: {},
  action: 'mcp.auth.rekey',
  noun: 'credential',
  previousKey: 'mcp.token_key_previous',
  rekey(context) {
    const config = context.loadConfig();
    const cipher = createTokenCipher(config.mcp.token_key, config.mcp.token_key_previous);
    return async (stores) => {
      let changed = 0;
      for (const row of await stores.mcpCredentials.list({})) {
        if (cipher.isCurrent(row.secret)) continue;
        await stores.mcpCredentials.put(row.server, row.userId, row.kind, cipher.encrypt(cipher.decrypt(row.secret)));
        changed += 1;
      }
      return changed;
    };
  },
});

export const mcpAuthLoginCommand: CliCommand = {
  name: 'mcp auth login',
  usage: 'sandpiper mcp auth login SERVER --user NAME',
  summary:
    "authorize an OAuth MCP server ahead of time as a user (prints the sign-in link; makes the server's tools known)",
  options: USER_OPTION,
  async run(context) {
    const [server] = requirePositionals(context, 1, this.usage);
    const user = context.flags['user'];
    if (typeof user !== 'string' || user.trim() === '') throw new UsageError(`usage: ${this.usage}`);
    const answer = (await callAdmin(context.loadConfig(), '/v1/api/admin/mcp/auth/login', {
      body: { server, user: user.trim() },
      scope: 'admin:write',
    })) as { authorized?: boolean; url?: string };
    if (answer.authorized) writeLine(context.io.stdout, `${user.trim()} has already authorized ${server ?? ''}`);
    else
      writeLine(
        context.io.stdout,
        `open this link in a browser, signed in as ${user.trim()} (it works once):\n${answer.url ?? ''}`,
      );
    return 0;
  },
};
