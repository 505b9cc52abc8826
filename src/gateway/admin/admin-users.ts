/** Admin views of users and API tokens: list users, list tokens (never their hashes), revoke a token. */
import { GatewayError } from '../../shared/errors.js';
import type { ApiToken, User, UserStore } from '../../storage/index.js';

export interface UserView {
  user_id: string;
  username: string;
  is_admin: boolean;
  created: string;
  /** `platform:platform_user_id` of each link. */
  links: string[];
}

export interface TokenView {
  token_id: string;
  username: string;
  scopes: string[];
  expires: string | null;
  expired: boolean;
  created: string;
}

export async function listUsers(users: UserStore): Promise<UserView[]> {
  const all = await users.listUsers();
  return Promise.all(
    all.map(async (user) => ({
      user_id: user.userId,
      username: user.username,
      is_admin: user.isAdmin,
      created: user.created,
      links: (await users.listLinks(user.userId)).map((link) => `${link.channelType}:${link.channelUserId}`),
    })),
  );
}

function tokenView(token: ApiToken, username: string, now: number): TokenView {
  const expired = token.expires !== null && Date.parse(`${token.expires}Z`) <= now;
  return {
    token_id: token.tokenId,
    username,
    scopes: token.scopes,
    expires: token.expires,
    expired,
    created: token.created,
  };
}

/** Tokens of one user (NOT_FOUND when the user does not exist), or of everyone. */
export async function listTokens(users: UserStore, username?: string, now = Date.now()): Promise<TokenView[]> {
  if (username !== undefined) {
    const user = await users.getUserByUsername(username);
    if (!user) throw new GatewayError('NOT_FOUND', `no user named "${username}"`);
    return (await users.listTokens(user.userId)).map((token) => tokenView(token, user.username, now));
  }
  const byId = new Map<string, User>((await users.listUsers()).map((user) => [user.userId, user]));
  return (await users.listTokens()).map((token) => tokenView(token, byId.get(token.userId)?.username ?? '', now));
}

/** Deletes a token so it no longer authenticates; NOT_FOUND when there is no such token. */
export async function revokeToken(users: UserStore, tokenId: string): Promise<{ token_id: string; revoked: true }> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(tokenId))
    throw new GatewayError('BAD_REQUEST', 'token_id must be the id shown by token list');
  if (!(await users.revokeToken(tokenId))) throw new GatewayError('NOT_FOUND', `no token with id "${tokenId}"`);
  return { token_id: tokenId, revoked: true };
}
