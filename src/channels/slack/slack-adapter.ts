/** The Slack adapter: a bolt app (Socket Mode or HTTP) translated to and from the ChannelAdapter port. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '@slack/bolt';
import { attachmentOrigins } from '../attachment-origins.js';
import { AdapterBase } from '../adapter-base.js';
import type {
  AttachmentAccess,
  ChannelAdapter,
  ChannelCapabilities,
  ChannelFeatures,
  CommandName,
  InboundHandler,
  OutboundMessage,
  PlatformUser,
  ReactionCode,
  ThreadOrigin,
} from '../channel-adapter.js';
import { untilAborted } from '../../shared/abort.js';
import { ChannelError, describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { SLACK_MAX_MESSAGE_LENGTH } from './slack-blocks.js';
import type { SlackAdapterConfig, SlackAdapterOptions } from './slack-adapter-config.js';
import { StreamSupport, streamingFeature } from './slack-stream-support.js';
import { parseTarget, RecentKeys, type SlackScope } from './slack-events.js';
import { SLACK_MAX_FORM_FIELDS } from './slack-forms.js';
import { createSlackApp } from './slack-app.js';
import type { SlackHttpReceiver, SlackHttpRequest, SlackHttpResponse } from './slack-http-receiver.js';
import { SlackApprovers } from './slack-approvers.js';
import { SlackCalls } from './slack-calls.js';
import { SlackHistory } from './slack-history.js';
import { SlackInstaller } from './slack-install.js';
import { listen } from './slack-listeners.js';
import { SlackSessions } from './slack-sessions.js';
import { SlackTeams } from './slack-teams.js';
import { SlackThreadMemory } from './slack-threads.js';
import { SlackPrivateReplies } from './slack-private.js';
import { slackCancelled, toSlackError } from './slack-web.js';
import { SlackMessages } from './slack-messages.js';

const REACTIONS: Record<ReactionCode, string> = { queued: 'hourglass_flowing_sand', refused: 'no_entry_sign' };

export type { SlackAdapterConfig, SlackAdapterOptions };

export class SlackAdapter extends AdapterBase implements ChannelAdapter {
  readonly platform = 'slack';
  readonly capabilities: ChannelCapabilities = {
    maxMessageLength: SLACK_MAX_MESSAGE_LENGTH,
    canEdit: true,
    canThread: true,
    answerPosts: true,
    spreadsEvents: true,
  };
  readonly features: ChannelFeatures;
  private app: App | undefined;
  private http: SlackHttpReceiver | undefined;
  private scope: SlackScope | undefined;
  private approvers: SlackApprovers | undefined;
  private readonly controller = new AbortController();
  private readonly seen = new RecentKeys();
  private readonly threads = new SlackThreadMemory();
  private readonly streaming: StreamSupport;
  readonly history: SlackHistory;
  readonly sessions: SlackSessions;

  private readonly teams: SlackTeams;
  private readonly calls: SlackCalls;
  private readonly installer: SlackInstaller | undefined;
  private readonly replies: SlackPrivateReplies;
  private readonly messages: SlackMessages;

  constructor(
    private readonly config: SlackAdapterConfig,
    logger: Logger,
    private readonly options: SlackAdapterOptions = {},
  ) {
    super(logger, 'slack');
    this.streaming = new StreamSupport(config.native_streaming ?? true, logger);
    const installs =
      config.client_id && config.client_secret && config.mode === 'http' ? options.installations : undefined;
    this.teams = new SlackTeams(installs?.store, logger);
    this.calls = new SlackCalls(this.teams, logger, (event) => this.deliver(event));
    this.replies = new SlackPrivateReplies(this.calls, config.slash_command, logger);
    this.messages = new SlackMessages(this.calls, config.slash_command, this.threads);
    this.sessions = new SlackSessions(
      config.agent_sessions ?? true,
      this.calls.plain,
      logger,
      (channel) => this.teams.cachedTeamOf(channel) ?? '',
    );
    this.history = new SlackHistory(this.calls.plain, () => this.scope, config.channel_ids);
    if (installs && config.client_id && config.client_secret) {
      const settings = {
        clientId: config.client_id,
        clientSecret: config.client_secret,
        publicUrl: installs.publicUrl,
        apiUrl: config.api_url,
      };
      this.installer = new SlackInstaller(settings, installs.store, logger, (install) =>
        this.teams.forget(install.teamId),
      );
    }
    this.features = {
      forms: { maxFields: SLACK_MAX_FORM_FIELDS },
      history: this.history,
      streaming: streamingFeature(this.streaming, {
        call: (method, args, channelId, signal) => this.calls.call(method, args, channelId, signal),
        opening: (channelId) => ({
          asker: this.threads.asker(channelId),
          teamId: this.teams.cachedTeamOf(parseTarget(channelId).channel),
          limits: this.options.streamLimits,
          sessionStatus: () => this.sessions.statusOf(channelId),
        }),
      }),
      // An ephemeral message for one person, in the thread the message they wrote is in.
      ephemeral: {
        whisper: (channelId, userId, _replyTo, text, signal) => this.replies.whisper(channelId, userId, text, signal),
      },
      attachments: { access: (channelId) => this.attachmentAccess(channelId) },
      sessions: {
        status: (channelId, status, title, signal) => this.sessions.setStatus(channelId, status, title, signal),
      },
      direct: { conversations: config.dm ?? true, open: (userId, signal) => this.openDirect(userId, signal) },
      approvers: { isApprover: (user, signal) => this.isApprover(user, signal) },
      drain: { stopInbound: () => this.stopInbound() },
    };
  }

  get threadParticipants(): 'owner' | 'linked' {
    return this.config.thread_participants ?? 'owner';
  }

  commandText(name: CommandName): string {
    return `\`${this.config.slash_command} ${name}\``;
  }

  /** Slack serves `url_private` files to a bot token of their workspace (scope `files:read`), from files.slack.com only. */
  private async attachmentAccess(channelId: string): Promise<AttachmentAccess> {
    // A workspace that is not (or no longer) installed gets no token: its files are refused, and the notice says so.
    const installed = () => this.teams.tokenFor({ channel: parseTarget(channelId).channel }).catch(() => undefined);
    const token = this.teams.isMultiTeam ? await installed() : this.config.bot_token;
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    return { origins: attachmentOrigins(['https://files.slack.com'], this.config.api_url), headers };
  }

  async start(handler: InboundHandler, signal: AbortSignal): Promise<void> {
    const token = this.config.bot_token;
    if (!token && !this.teams.isMultiTeam)
      throw new ChannelError('slack.bot_token is required', { code: 'CONFIG_INVALID' });
    const { app, http } = this.createApp(token);
    this.handler = handler;
    this.current = 'connecting';
    // An abort is the gateway shutting down: stopping is best effort, nothing is left to act on a failure.
    signal.addEventListener('abort', () => void this.stop().catch(() => undefined), { once: true });
    this.app = app;
    this.calls.app = app;
    this.http = http;
    try {
      this.scope = { botUserId: '', botId: '', channelIds: new Set(this.config.channel_ids) };
      if (token) {
        const auth = await untilAborted(app.client.auth.test({ token }), signal, () => slackCancelled('start'));
        this.scope = { ...this.scope, botUserId: String(auth.user_id ?? ''), botId: String(auth.bot_id ?? '') };
        this.teams.home = {
          teamId: String(auth.team_id ?? ''),
          token,
          botUserId: this.scope.botUserId,
          botId: this.scope.botId,
        };
      }
      listen(app, this.scope, this.listenerHost());
      await untilAborted(app.start(), signal, () => slackCancelled('start'));
    } catch (error) {
      this.current = 'failed';
      // The start's own error is what is reported (thrown below); stopping the half-started app is best effort.
      await app.stop().catch(() => undefined);
      throw toSlackError('start', error);
    }
    if (this.current === 'connecting') this.current = 'connected';
  }

  /** Closes the Socket Mode connection for the drain (Slack sends events to the app's other connections); Web API goes on. */
  private async stopInbound(): Promise<void> {
    this.inboundStopped = true;
    await this.app
      ?.stop()
      .catch((error: unknown) => this.logger.debug({ error: describeError(error) }, 'slack socket close failed'));
  }

  async stop(): Promise<void> {
    if (this.current === 'stopped') return;
    this.current = 'stopped';
    this.handler = undefined;
    this.controller.abort();
    try {
      await this.app?.stop();
    } catch (error) {
      this.logger.debug({ error: describeError(error) }, 'slack stop failed');
    }
  }

  post(channelId: string, message: OutboundMessage, signal: AbortSignal): Promise<string> {
    return this.messages.post(channelId, message, signal);
  }

  edit(channelId: string, messageId: string, message: OutboundMessage, signal: AbortSignal): Promise<void> {
    return this.messages.edit(channelId, messageId, message, signal);
  }

  /** A configured approver: a member of one of `slack.approver_groups`. */
  private isApprover(user: PlatformUser, signal: AbortSignal): Promise<boolean> {
    const call = (
      method: string,
      args: Record<string, unknown>,
      own: AbortSignal,
      via: string,
    ): Promise<Record<string, unknown>> => this.calls.call(method, args, undefined, own, via);
    this.approvers ??= new SlackApprovers(this.config.approver_groups ?? [], call, this.logger);
    return this.approvers.isApprover(user.id, signal);
  }

  /** Slack has no typing indicator for bot messages in channels: nothing to do. */
  async setTyping(_channelId: string, _signal: AbortSignal): Promise<void> {
    return Promise.resolve();
  }

  async react(channelId: string, messageId: string, reaction: ReactionCode, signal: AbortSignal): Promise<void> {
    const name = REACTIONS[reaction];
    const { channel } = parseTarget(channelId);
    await this.bestEffort('react', () =>
      this.calls.call('reactions.add', { channel, timestamp: messageId, name }, undefined, signal),
    );
  }

  /** An @mention's thread hangs off the user's message, an ask command's off an opener (`slack-messages.ts`). */
  startThread(channelId: string, name: string, origin: ThreadOrigin, signal: AbortSignal): Promise<string> {
    return this.messages.startThread(channelId, name, origin, signal);
  }

  /** Slack threads do not archive. */
  async archiveThread(_threadId: string, _signal: AbortSignal): Promise<void> {
    return Promise.resolve();
  }

  private async openDirect(userId: string, signal: AbortSignal): Promise<string> {
    const result = await this.calls.call('conversations.open', { users: userId }, undefined, signal);
    const channel = (result.channel ?? {}) as { id?: unknown };
    if (typeof channel.id !== 'string')
      throw new ChannelError('slack conversations.open returned no channel', { code: 'CHANNEL_ERROR' });
    return channel.id;
  }

  private createApp(token: string | undefined): ReturnType<typeof createSlackApp> {
    const { config, options } = this;
    const settings = {
      mode: config.mode ?? 'socket',
      botToken: token,
      authorize: this.teams.isMultiTeam ? this.teams.authorize : undefined,
      appToken: config.app_token,
      signingSecret: config.signing_secret,
      apiUrl: config.api_url,
      webRetries: options.webRetries,
      socketRetries: options.socketRetries,
      clientPingTimeoutMs: options.clientPingTimeoutMs,
    };
    return createSlackApp(settings, this.logger, {
      setState: (state) => this.setState(state),
      history: this.history,
      inboundStopped: () => this.inboundStopped,
    });
  }

  /** One `POST /slack/events` (slack.mode = "http"): verified, acknowledged, handled. 503 before the adapter started. */
  async handleHttp(request: SlackHttpRequest): Promise<SlackHttpResponse> {
    const http = this.http;
    if ((this.config.mode ?? 'socket') !== 'http')
      return { status: 404, body: 'slack.mode is not "http"', contentType: 'text/plain; charset=utf-8' };
    if (!http || this.inboundStopped || this.current === 'stopped')
      return { status: 503, body: 'not ready', contentType: 'text/plain; charset=utf-8' };
    return http.handle(request);
  }

  /** `GET /slack/install` and `GET /slack/oauth_redirect` (slack.client_id): false when installs are not configured. */
  async handleInstallRequest(
    step: 'install' | 'redirect',
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<boolean> {
    if (!this.installer) return false;
    await (step === 'install' ? this.installer.handleInstall(req, res) : this.installer.handleRedirect(req, res));
    return true;
  }

  private listenerHost(): Parameters<typeof listen>[2] {
    return {
      slash: this.config.slash_command,
      logger: this.logger,
      signal: this.controller.signal,
      calls: this.calls,
      teams: this.teams,
      seen: this.seen,
      deliver: (event) => this.deliver(event),
      privateReply: (target, text) => this.replies.privateReply(target, text, this.controller.signal),
      rememberThread: (channel, userId, threadTs) => this.threads.remember(channel, userId, threadTs),
      recentThread: (channel, userId) => this.threads.recent(channel, userId),
      bestEffort: (what, call) => this.bestEffort(what, call),
      uninstalled: (teamId) => this.teams.uninstalled(teamId),
    };
  }
}
