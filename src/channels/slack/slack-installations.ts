/**
 * The port of the Slack installation store (installs in many workspaces, `slack.client_id`): what the adapter needs
 * of the database, with tokens in plain text. The composition root implements it on the stores, encrypting tokens
 * at rest (`src/main-slack.ts`); the adapter never sees storage.
 */

/** One workspace's install of the app (OAuth v2, bot token only). */
export interface SlackInstallation {
  teamId: string;
  teamName: string;
  enterpriseId: string | undefined;
  appId: string | undefined;
  botUserId: string;
  botId: string;
  botToken: string;
  botScopes: readonly string[];
  /** Who installed it (`U…`). */
  installerUserId: string | undefined;
}

export interface SlackInstallations {
  /** The workspace's install, undefined when it never installed or uninstalled. */
  get(teamId: string): Promise<SlackInstallation | undefined>;
  save(install: SlackInstallation): Promise<void>;
  /** Removes the install (uninstall, revoked tokens, `slack installs remove`); false when there was none. */
  remove(teamId: string): Promise<boolean>;
  /** The workspace a channel or user id was seen in. */
  teamOf(key: string): Promise<string | undefined>;
  remember(key: string, teamId: string): Promise<void>;
  /** A new single-use install state carrying `installOptions` until `expiresAt`. */
  createState(installOptions: string, expiresAt: Date): Promise<string>;
  /** Takes a state once: its install options, or undefined when forged, used or expired. */
  takeState(state: string, now: Date): Promise<string | undefined>;
}
