/**
 * Which workspace's token a Slack call uses. With one `bot_token` every call uses it. With installs in many workspaces
 * (`slack.client_id`), each event is authorized with its own workspace's install (bolt `authorize`) and an outbound
 * call finds its workspace by the channel (or user) it names: learnt from the events that arrive, kept in the
 * database (a restart still answers a thread) and cached here.
 */
import type { AuthorizeResult, AuthorizeSourceData } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import { ChannelError, describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { SlackInstallation, SlackInstallations } from './slack-installations.js';

const KEYS = 20_000;
const INSTALLS = 1_000;
/** An install read from the database is trusted this long (a removal by `slack installs remove` elsewhere shows after it). */
const INSTALL_TTL_MS = 30_000;
/** Trigger ids live for seconds: kept in memory only. */
const TRIGGERS = 2_000;

/** The bot of a workspace, as an event's listeners need it. */
export interface TeamBot {
  teamId: string;
  token: string;
  botUserId: string;
  botId: string;
}

export class SlackTeams {
  private readonly keyTeams = new LRUCache<string, string>({ max: KEYS });
  private readonly installs = new LRUCache<string, SlackInstallation>({ max: INSTALLS, ttl: INSTALL_TTL_MS });
  private readonly triggers = new LRUCache<string, string>({ max: TRIGGERS, ttl: 60_000 });
  /** The configured `bot_token`'s workspace (auth.test), when there is one. */
  home: TeamBot | undefined;

  constructor(
    readonly installations: SlackInstallations | undefined,
    private readonly logger: Logger,
  ) {}

  get isMultiTeam(): boolean {
    return this.installations !== undefined;
  }

  /** bolt's `authorize`: the event's workspace's bot token; throws (bolt acknowledges and ignores the event) when not installed. */
  readonly authorize = async (source: AuthorizeSourceData<boolean>): Promise<AuthorizeResult> => {
    const teamId = source.teamId ?? source.enterpriseId ?? '';
    const bot = await this.botOf(teamId);
    if (!bot) throw new ChannelError('slack workspace is not installed', { code: 'UNAUTHORIZED' });
    return { botToken: bot.token, botUserId: bot.botUserId, botId: bot.botId, teamId: bot.teamId };
  };

  /** The bot of a workspace: the configured one, or its install. */
  async botOf(teamId: string): Promise<TeamBot | undefined> {
    if (this.home && this.home.teamId === teamId) return this.home;
    if (!this.installations || teamId === '') return undefined;
    let install = this.installs.get(teamId);
    if (!install) {
      install = await this.installations.get(teamId);
      if (install) this.installs.set(teamId, install);
    }
    return install
      ? { teamId, token: install.botToken, botUserId: install.botUserId, botId: install.botId }
      : undefined;
  }

  /** Records the workspace of the channels and users of an event (stored when new, so a restart still knows them). */
  learn(teamId: string | undefined, keys: readonly (string | undefined)[], triggerId: string | undefined): void {
    if (!this.installations || !teamId) return;
    if (triggerId) this.triggers.set(triggerId, teamId);
    for (const key of keys) {
      if (!key || this.keyTeams.get(key) === teamId) continue;
      this.keyTeams.set(key, teamId);
      void this.installations
        .remember(key, teamId)
        .catch((error: unknown) =>
          this.logger.warn({ error: describeError(error) }, 'slack workspace of a channel not stored'),
        );
    }
  }

  /** Forgets an uninstalled workspace's token at once. */
  forget(teamId: string): void {
    this.installs.delete(teamId);
  }

  /** The token for a call with `args` (its channel, user or trigger); the configured bot token when none is known. */
  async tokenFor(args: Record<string, unknown>, via?: string): Promise<string | undefined> {
    if (!this.installations) return undefined;
    const teamId = await this.teamOfCall(args, via);
    const bot = teamId === undefined ? this.home : await this.botOf(teamId);
    if (!bot)
      throw new ChannelError(
        teamId === undefined ? 'slack: no workspace is known for this channel' : 'slack workspace is not installed',
        { code: 'NOT_FOUND' },
      );
    return bot.token;
  }

  /** The workspace of a channel from memory only (the native stream's recipient), undefined when unknown. */
  cachedTeamOf(key: string): string | undefined {
    return this.installations ? this.keyTeams.get(key) : this.home?.teamId;
  }

  private async teamOfCall(args: Record<string, unknown>, via: string | undefined): Promise<string | undefined> {
    const trigger = typeof args.trigger_id === 'string' ? this.triggers.get(args.trigger_id) : undefined;
    if (trigger) return trigger;
    const keys = [via, args.channel, args.channel_id, args.users, args.user].filter(
      (key): key is string => typeof key === 'string' && key !== '',
    );
    for (const key of keys) {
      const cached = this.keyTeams.get(key);
      if (cached) return cached;
      const stored = await this.installations?.teamOf(key);
      if (stored) {
        this.keyTeams.set(key, stored);
        return stored;
      }
    }
    return undefined;
  }

  /** `app_uninstalled` or a revoked bot token: the workspace's install is removed (its later events are ignored). */
  async uninstalled(teamId: string): Promise<void> {
    this.forget(teamId);
    if (!this.installations) {
      this.logger.warn('slack: the workspace uninstalled the app or revoked its bot token');
      return;
    }
    const removed = await this.installations.remove(teamId).catch((error: unknown) => {
      this.logger.error({ team: teamId, error: describeError(error) }, 'slack install could not be removed');
      return false;
    });
    this.logger.info({ team: teamId, removed }, 'slack workspace uninstalled');
  }
}
