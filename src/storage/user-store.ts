/** Users, API tokens and platform-user links (`users`, `api_tokens`, `channel_users`). */

export interface User {
  userId: string;
  username: string;
  isAdmin: boolean;
  created: string;
  /** A disabled user keeps their data but counts as unlinked everywhere (`sandpiper user disable`). */
  disabled?: boolean;
}

export interface ApiToken {
  tokenId: string;
  userId: string;
  /** Scopes as stored, e.g. `['read', 'write']`. */
  scopes: string[];
  /** UTC ISO timestamp or null for no expiry. */
  expires: string | null;
  created: string;
}

export interface ChannelLink {
  channelType: string;
  channelUserId: string;
  userId: string;
  created: string;
}

export interface UserStore {
  /** Creates a user; throws StorageError code CONFLICT when the username exists. */
  createUser(username: string, options?: { isAdmin?: boolean }): Promise<User>;
  getUser(userId: string): Promise<User | undefined>;
  getUserByUsername(username: string): Promise<User | undefined>;
  /** Every user, by username. */
  listUsers(): Promise<User[]>;
  /** Disables or enables a user; false when no such user. */
  setDisabled(userId: string, disabled: boolean): Promise<boolean>;
  /** Stores a token by its SHA-256 hex hash; the plain token is never stored. */
  createToken(input: {
    userId: string;
    tokenHash: string;
    scopes: string[];
    expires: string | null;
  }): Promise<ApiToken>;
  /** The token with this hash, or undefined. Does not check expiry. */
  findTokenByHash(tokenHash: string): Promise<ApiToken | undefined>;
  /** Tokens (never their hashes), of one user when given, oldest first. */
  listTokens(userId?: string): Promise<ApiToken[]>;
  /** Deletes a token so it no longer authenticates; returns whether it existed. */
  revokeToken(tokenId: string): Promise<boolean>;
  /** Links a platform user to a user; the first link wins (returns false when one existed). */
  link(channelType: string, channelUserId: string, userId: string): Promise<boolean>;
  /** Removes a link; returns whether one existed. */
  unlink(channelType: string, channelUserId: string): Promise<boolean>;
  getLink(channelType: string, channelUserId: string): Promise<ChannelLink | undefined>;
  /** The user a platform identity is linked to, in one query (the gateway asks on every message it has not cached). */
  getLinkedUser(channelType: string, channelUserId: string): Promise<User | undefined>;
  /** The linked users of many platform identities in one query (unlinked ones are absent). */
  getLinkedUsers(channelType: string, channelUserIds: readonly string[]): Promise<Map<string, User>>;
  /** Links of a user, newest first. */
  listLinks(userId: string): Promise<ChannelLink[]>;
  /** Every platform identity with its linked user, at most `limit` of them (the gateway's link directory). */
  listLinkedUsers(limit: number): Promise<LinkedIdentity[]>;
}

export interface LinkedIdentity {
  channelType: string;
  channelUserId: string;
  user: User;
}
