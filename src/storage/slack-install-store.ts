/** Slack workspaces that installed the app (OAuth v2, HTTP mode), which workspace a channel or user is in, and install states. */

export interface SlackInstallRow {
  teamId: string;
  enterpriseId: string | null;
  teamName: string;
  appId: string | null;
  botUserId: string;
  botId: string;
  /** Ciphertext only (the store never sees a raw token). */
  botToken: string;
  botScopes: string[];
  installerUserId: string | null;
  installedAt: string;
  updatedAt: string;
}

export type SlackInstallInput = Omit<SlackInstallRow, 'installedAt' | 'updatedAt'>;

export interface SlackInstallStore {
  get(teamId: string): Promise<SlackInstallRow | undefined>;
  /** Saves a workspace's install (a reinstall replaces the token and scopes and keeps `installedAt`). */
  put(install: SlackInstallInput): Promise<void>;
  /** Removes a workspace's install and what was learnt about its channels and users; false when there was none. */
  remove(teamId: string): Promise<boolean>;
  list(): Promise<SlackInstallRow[]>;
  /** The workspace a channel or user id was last seen in. */
  teamOf(key: string): Promise<string | undefined>;
  /** Records that a channel or user id belongs to a workspace (written only when it changed). */
  remember(key: string, teamId: string): Promise<void>;
  /** Stores an install flow's state (by hash) until `expiresAt`. */
  putState(stateHash: string, installOptions: string, expiresAt: Date): Promise<void>;
  /** Takes a state once: its install options, or undefined when unknown, used or expired. */
  takeState(stateHash: string, now: Date): Promise<string | undefined>;
}
