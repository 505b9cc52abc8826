/** Admin commands on the database: `user add`, `token create`, `link`, `unlink`. */
import { generateApiToken, hashApiToken } from '../shared/api-token.js';
import { GatewayError, UsageError } from '../shared/errors.js';
import { isoFromMs } from '../shared/time.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { found, requirePositionals, withAuditedStores } from './command-table.js';

// These moved to command-table.ts; re-exported so commands written on other branches before the move still build.
export { requirePositionals, withAuditedStores, withStores } from './command-table.js';

const VALID_SCOPES = ['read', 'write', 'approve', 'service'] as const;
const PLATFORMS = ['discord', 'slack'] as const;

function validateUsername(username: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(username)) {
    throw new UsageError('username must be 1-64 characters of letters, digits, "_", "." or "-"');
  }
  return username;
}

function parseScopes(raw: unknown): string[] {
  const text = typeof raw === 'string' ? raw : 'read,write';
  const scopes = [
    ...new Set(
      text
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = scopes.filter((scope) => !(VALID_SCOPES as readonly string[]).includes(scope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new UsageError(`--scopes takes a comma list of ${VALID_SCOPES.join(', ')}`);
  }
  return scopes;
}

function parseExpiry(raw: unknown, now = Date.now()): string | null {
  if (raw === undefined) return null;
  const days = typeof raw === 'string' ? Number(raw) : NaN;
  if (!Number.isFinite(days) || days <= 0 || days > 36500)
    throw new UsageError('--expires takes a number of days (e.g. 30)');
  return isoFromMs(now + days * 86_400_000);
}

function parsePlatform(raw: string): string {
  if (!(PLATFORMS as readonly string[]).includes(raw))
    throw new UsageError(`platform must be one of ${PLATFORMS.join(', ')}`);
  return raw;
}

export const userAddCommand: CliCommand = {
  name: 'user add',
  usage: 'sandpiper user add USERNAME [--admin]',
  summary: 'create a user',
  options: { admin: { type: 'boolean' } },
  async run(context) {
    const [username] = requirePositionals(context, 1, this.usage);
    const user = await withAuditedStores(
      context,
      { action: 'user.add', target: username as string, detail: context.flags['admin'] === true ? 'admin' : '' },
      (stores) =>
        stores.users.createUser(validateUsername(username as string), { isAdmin: context.flags['admin'] === true }),
    );
    writeLine(
      context.io.stdout,
      `created user ${user.username} (${user.userId})${user.isAdmin ? ' with admin rights' : ''}`,
    );
    return 0;
  },
};

export const tokenCreateCommand: CliCommand = {
  name: 'token create',
  usage: 'sandpiper token create USERNAME [--scopes read,write] [--expires DAYS]',
  summary: 'print a new API token once (stored hashed)',
  options: { scopes: { type: 'string' }, expires: { type: 'string' } },
  async run(context) {
    const [username] = requirePositionals(context, 1, this.usage);
    const scopes = parseScopes(context.flags['scopes']);
    const expires = parseExpiry(context.flags['expires']);
    const token = generateApiToken();
    await withAuditedStores(
      context,
      { action: 'token.create', target: username as string, detail: `scopes=${scopes.join(',')}` },
      async (stores) => {
        const user = found(
          await stores.users.getUserByUsername(username as string),
          `no user named "${username}" (create it with: sandpiper user add ${username})`,
        );
        await stores.users.createToken({ userId: user.userId, tokenHash: hashApiToken(token), scopes, expires });
      },
    );
    writeLine(
      context.io.stderr,
      `token for ${username} (scopes ${scopes.join(',')}${expires ? `, expires ${expires}Z` : ', no expiry'}); it is shown only once:`,
    );
    writeLine(context.io.stdout, token);
    return 0;
  },
};

export const linkCommand: CliCommand = {
  name: 'link',
  usage: 'sandpiper link PLATFORM PLATFORM_USER_ID USERNAME',
  summary: 'link a Discord or Slack user to a user',
  async run(context) {
    const [platform, platformUserId, username] = requirePositionals(context, 3, this.usage) as [string, string, string];
    const message = await withAuditedStores(
      context,
      { action: 'link', target: `${platform}:${platformUserId}`, detail: username },
      async (stores) => {
        const user = found(await stores.users.getUserByUsername(username), `no user named "${username}"`);
        const existing = await stores.users.getLink(parsePlatform(platform), platformUserId);
        if (existing && existing.userId !== user.userId) {
          throw new GatewayError(
            'CONFLICT',
            `${platform} user ${platformUserId} is already linked to another user; unlink it first`,
          );
        }
        const created = await stores.users.link(platform, platformUserId, user.userId);
        return created
          ? `linked ${platform} user ${platformUserId} to ${username}`
          : `${platform} user ${platformUserId} was already linked to ${username}`;
      },
    );
    writeLine(context.io.stdout, message);
    return 0;
  },
};

export const unlinkCommand: CliCommand = {
  name: 'unlink',
  usage: 'sandpiper unlink PLATFORM PLATFORM_USER_ID',
  summary: 'remove a platform user link',
  async run(context) {
    const [platform, platformUserId] = requirePositionals(context, 2, this.usage) as [string, string];
    await withAuditedStores(context, { action: 'unlink', target: `${platform}:${platformUserId}` }, async (stores) => {
      found(
        await stores.users.unlink(parsePlatform(platform), platformUserId),
        `${platform} user ${platformUserId} is not linked`,
      );
    });
    writeLine(context.io.stdout, `unlinked ${platform} user ${platformUserId}`);
    return 0;
  },
};
