/** UserStore on knex: users, hashed API tokens and platform-user links. */
import type { Knex } from 'knex';
import { newHexId, newUuid } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import { fromDbBool, nullableText, text, toDbBool, type DbRow } from './rows.js';
import { conflictError, guard, isUniqueViolation } from './storage-errors.js';
import type { ApiToken, ChannelLink, LinkedIdentity, User, UserStore } from './user-store.js';

/** Identities per lookup query (well under the bound-parameter limits). */
const LOOKUP_CHUNK = 500;

function toUser(row: DbRow): User {
  return {
    userId: text(row.user_id),
    username: text(row.username),
    isAdmin: fromDbBool(row.is_admin),
    disabled: fromDbBool(row.disabled),
    created: text(row.created),
  };
}

function toToken(row: DbRow): ApiToken {
  const scopes = text(row.scopes);
  return {
    tokenId: text(row.token_id),
    userId: text(row.user_id),
    scopes:
      scopes === ''
        ? []
        : scopes
            .split(',')
            .map((scope) => scope.trim())
            .filter((scope) => scope !== ''),
    expires: nullableText(row.expires),
    created: text(row.created),
  };
}

function toLink(row: DbRow): ChannelLink {
  return {
    channelType: text(row.channel_type),
    channelUserId: text(row.channel_user_id),
    userId: text(row.user_id),
    created: text(row.created),
  };
}

export class KnexUserStore implements UserStore {
  constructor(
    private readonly knex: Knex,
    /** Called after a link or unlink through this store committed (the gateway's link directory reloads). */
    private readonly onLinksChanged: () => void = () => undefined,
  ) {}

  createUser(username: string, options: { isAdmin?: boolean } = {}): Promise<User> {
    return guard('users.createUser', async () => {
      const row = { user_id: newUuid(), username, is_admin: toDbBool(options.isAdmin ?? false), created: isoNow() };
      try {
        await this.knex('users').insert(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw conflictError('a user with this username exists', error);
        throw error;
      }
      return toUser(row);
    });
  }

  getUser(userId: string): Promise<User | undefined> {
    return guard('users.getUser', async () => {
      const row = (await this.knex('users').where({ user_id: userId }).first()) as DbRow | undefined;
      return row ? toUser(row) : undefined;
    });
  }

  getUserByUsername(username: string): Promise<User | undefined> {
    return guard('users.getUserByUsername', async () => {
      const row = (await this.knex('users').where({ username }).first()) as DbRow | undefined;
      return row ? toUser(row) : undefined;
    });
  }

  listUsers(): Promise<User[]> {
    return guard('users.listUsers', async () => {
      const rows = (await this.knex('users').orderBy('username')) as DbRow[];
      return rows.map(toUser);
    });
  }

  createToken(input: {
    userId: string;
    tokenHash: string;
    scopes: string[];
    expires: string | null;
  }): Promise<ApiToken> {
    return guard('users.createToken', async () => {
      const row = {
        token_id: newHexId(),
        token_hash: input.tokenHash,
        user_id: input.userId,
        scopes: input.scopes.join(','),
        expires: input.expires,
        created: isoNow(),
      };
      await this.knex('api_tokens').insert(row);
      return toToken(row);
    });
  }

  findTokenByHash(tokenHash: string): Promise<ApiToken | undefined> {
    return guard('users.findTokenByHash', async () => {
      // A disabled user's tokens link nothing.
      const row = (await this.knex('api_tokens')
        .join('users', 'users.user_id', 'api_tokens.user_id')
        .where({ 'api_tokens.token_hash': tokenHash, 'users.disabled': 0 })
        .first(
          'api_tokens.token_id',
          'api_tokens.user_id',
          'api_tokens.scopes',
          'api_tokens.expires',
          'api_tokens.created',
        )) as DbRow | undefined;
      return row ? toToken(row) : undefined;
    });
  }

  listTokens(userId?: string): Promise<ApiToken[]> {
    return guard('users.listTokens', async () => {
      const query = this.knex('api_tokens').select('token_id', 'user_id', 'scopes', 'expires', 'created');
      if (userId !== undefined) query.where({ user_id: userId });
      const rows = (await query.orderBy([{ column: 'created' }, { column: 'token_id' }])) as DbRow[];
      return rows.map(toToken);
    });
  }

  setDisabled(userId: string, disabled: boolean): Promise<boolean> {
    return guard('users.setDisabled', async () => {
      const changed = await this.knex('users')
        .where({ user_id: userId })
        .update({ disabled: toDbBool(disabled) });
      // Links of a disabled user no longer resolve: the gateway's link directory reloads.
      if (changed > 0) this.onLinksChanged();
      return changed > 0;
    });
  }

  revokeToken(tokenId: string): Promise<boolean> {
    return guard(
      'users.revokeToken',
      async () => (await this.knex('api_tokens').where({ token_id: tokenId }).delete()) > 0,
    );
  }

  link(channelType: string, channelUserId: string, userId: string): Promise<boolean> {
    return guard('users.link', async () => {
      const row = { channel_type: channelType, channel_user_id: channelUserId, user_id: userId, created: isoNow() };
      const inserted = await this.knex('channel_users')
        .insert(row)
        .onConflict(['channel_type', 'channel_user_id'])
        .ignore()
        .returning('channel_type');
      if (inserted.length > 0) this.onLinksChanged();
      return inserted.length > 0;
    });
  }

  unlink(channelType: string, channelUserId: string): Promise<boolean> {
    return guard('users.unlink', async () => {
      const removed = await this.knex('channel_users')
        .where({ channel_type: channelType, channel_user_id: channelUserId })
        .delete();
      if (removed > 0) this.onLinksChanged();
      return removed > 0;
    });
  }

  getLink(channelType: string, channelUserId: string): Promise<ChannelLink | undefined> {
    return guard('users.getLink', async () => {
      const row = (await this.knex('channel_users')
        .where({ channel_type: channelType, channel_user_id: channelUserId })
        .first()) as DbRow | undefined;
      return row ? toLink(row) : undefined;
    });
  }

  getLinkedUser(channelType: string, channelUserId: string): Promise<User | undefined> {
    return guard('users.getLinkedUser', async () => {
      const row = (await this.knex('channel_users')
        .join('users', 'users.user_id', 'channel_users.user_id')
        .where('users.disabled', 0)
        .where({ 'channel_users.channel_type': channelType, 'channel_users.channel_user_id': channelUserId })
        .first('users.user_id', 'users.username', 'users.is_admin', 'users.created')) as DbRow | undefined;
      return row ? toUser(row) : undefined;
    });
  }

  getLinkedUsers(channelType: string, channelUserIds: readonly string[]): Promise<Map<string, User>> {
    return guard('users.getLinkedUsers', async () => {
      const found = new Map<string, User>();
      for (let start = 0; start < channelUserIds.length; start += LOOKUP_CHUNK) {
        const rows = (await this.knex('channel_users')
          .join('users', 'users.user_id', 'channel_users.user_id')
          .where('users.disabled', 0)
          .where('channel_users.channel_type', channelType)
          .whereIn('channel_users.channel_user_id', channelUserIds.slice(start, start + LOOKUP_CHUNK))
          .select(
            'channel_users.channel_user_id',
            'users.user_id',
            'users.username',
            'users.is_admin',
            'users.created',
          )) as DbRow[];
        for (const row of rows) found.set(text(row.channel_user_id), toUser(row));
      }
      return found;
    });
  }

  listLinks(userId: string): Promise<ChannelLink[]> {
    return guard('users.listLinks', async () => {
      const rows = (await this.knex('channel_users')
        .where({ user_id: userId })
        .orderBy([
          { column: 'created', order: 'desc' },
          { column: 'channel_type' },
          { column: 'channel_user_id' },
        ])) as DbRow[];
      return rows.map(toLink);
    });
  }

  listLinkedUsers(limit: number): Promise<LinkedIdentity[]> {
    return guard('users.listLinkedUsers', async () => {
      const rows = (await this.knex('channel_users')
        .join('users', 'users.user_id', 'channel_users.user_id')
        .where('users.disabled', 0)
        .select(
          'channel_users.channel_type',
          'channel_users.channel_user_id',
          'users.user_id',
          'users.username',
          'users.is_admin',
          'users.created',
        )
        .orderBy([{ column: 'channel_users.channel_type' }, { column: 'channel_users.channel_user_id' }])
        .limit(limit)) as DbRow[];
      return rows.map((row) => ({
        channelType: text(row.channel_type),
        channelUserId: text(row.channel_user_id),
        user: toUser(row),
      }));
    });
  }
}
