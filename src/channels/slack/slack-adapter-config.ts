/** The Slack adapter's settings (the `slack` config section) and its tuning options. */
import type { SlackInstallations } from './slack-installations.js';
import type { StreamLimits } from './slack-native-stream.js';

export interface SlackAdapterConfig {
  bot_token?: string | undefined;
  app_token?: string | undefined;
  /** `socket` (Socket Mode, an app token) or `http` (Slack POSTs to /slack/events, signed with `signing_secret`). */
  mode?: 'socket' | 'http' | undefined;
  signing_secret?: string | undefined;
  channel_ids: readonly string[];
  slash_command: string;
  api_url?: string | undefined;
  thread_participants?: 'owner' | 'linked';
  /** User group ids whose members may decide any approval card. */
  approver_groups?: readonly string[];
  /** Answers over chat.startStream/appendStream/stopStream when the workspace takes them (default true). */
  native_streaming?: boolean | undefined;
  /** Direct messages are conversations (default true). */
  dm?: boolean;
  /** Threads show Slack agent sessions (status, title, the native Stop button) when the app is an agent (default true). */
  agent_sessions?: boolean | undefined;
  /** Installs in many workspaces (mode = "http", with `SlackAdapterOptions.installations`). */
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

/** Tuning for tests: Web API and Socket Mode retries (tests turn them off). */
export interface SlackAdapterOptions {
  webRetries?: number;
  socketRetries?: number;
  /** Native stream limits (tests lower them to force a rollover). */
  streamLimits?: Partial<StreamLimits>;
  /** Socket Mode's pong wait, also the step of its reconnect delay (bolt's default 5 s; fault tests lower it). */
  clientPingTimeoutMs?: number;
  /** Installs in many workspaces: the installation store and `gateway.public_url` (with `slack.client_id`). */
  installations?: { store: SlackInstallations; publicUrl: string } | undefined;
}
