/** The Slack adapter: a bolt app in Socket Mode translated to and from the ChannelAdapter port. */
import { LRUCache } from 'lru-cache';
import type { App } from '@slack/bolt';
import { attachmentOrigins } from '../attachment-origins.js';
import { AdapterBase } from '../adapter-base.js';
import type {
  AttachmentAccess, ChannelAdapter, ChannelCapabilities, ChannelFeatures, CommandName, InboundEvent, InboundHandler, NativeStream, OutboundMessage, PlatformUser, ReactionCode,
  ThreadOrigin,
} from '../channel-adapter.js';
import { untilAborted } from '../../shared/abort.js';
import { withEventId } from '../inbound-id.js';
import { ChannelError, describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { sleep } from '../../shared/time.js';
import { truncate } from '../format/truncate.js';
import { renderSlackMessage, SLACK_MAX_MESSAGE_LENGTH, withStopButton } from './slack-blocks.js';
import { SlackNativeStream, type StreamLimits } from './slack-native-stream.js';
import { StreamSupport } from './slack-stream-support.js';
import { isDirect, parseTarget, RecentKeys, threadKey, toInboundMessage, type RawMessageEvent, type SlackScope } from './slack-events.js';
import { escapeSlackText, slackCommandHints, toMrkdwn } from './slack-format.js';
import { SLACK_MAX_FORM_FIELDS } from './slack-forms.js';
import { createSlackApp } from './slack-app.js';
import type { SlackHttpReceiver, SlackHttpRequest, SlackHttpResponse } from './slack-http-receiver.js';
import { SlackApprovers } from './slack-approvers.js';
import { SlackHistory } from './slack-history.js';
import { onBangCommand, onBlockAction, onSessionStopped, onSlashCommand, onViewSubmission, type InteractionDeps, type RawSessionStopped, type ReplyTarget } from './slack-interactions.js';
import { SlackSessions } from './slack-sessions.js';
import { postToResponseUrl, rateLimitedMs, slackCancelled, toSlackError } from './slack-web.js';

const RATE_LIMIT_ATTEMPTS = 3;
const MAX_RATE_LIMIT_WAIT_MS = 30_000;
const RECENT_THREADS = 4_096;
const REACTIONS: Record<ReactionCode, string> = { queued: 'hourglass_flowing_sand', refused: 'no_entry_sign' };

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
}

/** Tuning for tests: Web API and Socket Mode retries (tests turn them off). */
export interface SlackAdapterOptions {
  webRetries?: number;
  socketRetries?: number;
  /** Native stream limits (tests lower them to force a rollover). */
  streamLimits?: Partial<StreamLimits>;
  /** Socket Mode's pong wait, also the step of its reconnect delay (bolt's default 5 s; fault tests lower it). */
  clientPingTimeoutMs?: number;
}

export class SlackAdapter extends AdapterBase implements ChannelAdapter {
  readonly platform = 'slack';
  readonly capabilities: ChannelCapabilities = {
    maxMessageLength: SLACK_MAX_MESSAGE_LENGTH,
    canEdit: true,
    canThread: true,
  };
  readonly features: ChannelFeatures;
  private app: App | undefined;
  private http: SlackHttpReceiver | undefined;
  private scope: SlackScope | undefined;
  private approvers: SlackApprovers | undefined;
  private readonly controller = new AbortController();
  private readonly seen = new RecentKeys();
  /** `<channel>:<user>` → the user's latest thread there (slash commands carry no thread). A cache only. */
  private readonly recentThreads = new LRUCache<string, string>({ max: RECENT_THREADS });
  /** Thread key → who last asked there: Slack streams only to a named recipient outside DMs. A cache only. */
  private readonly threadUsers = new LRUCache<string, string>({ max: RECENT_THREADS });
  private teamId = '';
  private readonly streaming: StreamSupport;
  readonly history: SlackHistory;
  readonly sessions: SlackSessions;

  constructor(
    private readonly config: SlackAdapterConfig,
    logger: Logger,
    private readonly options: SlackAdapterOptions = {},
  ) {
    super(logger, 'slack');
    this.streaming = new StreamSupport(config.native_streaming ?? true, logger);
    this.sessions = new SlackSessions(config.agent_sessions ?? true, (method, args, signal) => this.call(method, args, undefined, signal), logger);
    this.history = new SlackHistory((method, args, signal) => this.call(method, args, undefined, signal), () => this.scope, config.channel_ids);
    this.features = {
      forms: { maxFields: SLACK_MAX_FORM_FIELDS },
      history: this.history,
      streaming: { open: (channelId) => this.openStream(channelId) },
      ephemeral: { whisper: (...args) => this.whisper(...args) },
      attachments: { access: () => this.attachmentAccess() },
      sessions: { status: (channelId, status, title, signal) => this.sessions.setStatus(channelId, status, title, signal) },
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

  /** Slack serves `url_private` files to the bot token (scope `files:read`), from files.slack.com only. */
  private attachmentAccess(): AttachmentAccess {
    const headers: Record<string, string> = this.config.bot_token ? { authorization: `Bearer ${this.config.bot_token}` } : {};
    return { origins: attachmentOrigins(['https://files.slack.com'], this.config.api_url), headers };
  }

  async start(handler: InboundHandler, signal: AbortSignal): Promise<void> {
    const token = this.config.bot_token;
    if (!token) throw new ChannelError('slack.bot_token is required', { code: 'CONFIG_INVALID' });
    const { app, http } = this.createApp(token);
    this.handler = handler;
    this.current = 'connecting';
    signal.addEventListener('abort', () => void this.stop().catch(() => undefined), { once: true });
    this.app = app;
    this.http = http;
    try {
      const auth = await untilAborted(app.client.auth.test(), signal, () => slackCancelled('start'));
      this.teamId = String(auth.team_id ?? '');
      this.scope = { botUserId: String(auth.user_id ?? ''), botId: String(auth.bot_id ?? ''), channelIds: new Set(this.config.channel_ids) };
      this.listen(app, this.scope);
      await untilAborted(app.start(), signal, () => slackCancelled('start'));
    } catch (error) {
      this.current = 'failed';
      await app.stop().catch(() => undefined);
      throw toSlackError('start', error);
    }
    if (this.current === 'connecting') this.current = 'connected';
  }

  /** Closes the Socket Mode connection for the drain (Slack sends events to the app's other connections); Web API goes on. */
  private async stopInbound(): Promise<void> {
    this.inboundStopped = true;
    await this.app?.stop().catch((error: unknown) => this.logger.debug({ error: describeError(error) }, 'slack socket close failed'));
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

  async post(channelId: string, message: OutboundMessage, signal: AbortSignal): Promise<string> {
    const { channel, threadTs } = parseTarget(channelId);
    const body = this.render(channelId, message);
    const args = { channel, ...(threadTs ? { thread_ts: threadTs } : {}), ...body, unfurl_links: false, unfurl_media: false };
    const result = await this.call('chat.postMessage', args, channelId, signal);
    return String(result.ts ?? '');
  }

  async edit(channelId: string, messageId: string, message: OutboundMessage, signal: AbortSignal): Promise<void> {
    const { channel } = parseTarget(channelId);
    const body = this.render(channelId, message);
    await this.call('chat.update', { channel, ts: messageId, text: body.text, blocks: body.blocks ?? [] }, channelId, signal);
  }

  /** The Slack body of a message; a stoppable live message in a thread gets the Stop button (it names the thread). */
  private render(channelId: string, message: OutboundMessage): ReturnType<typeof renderSlackMessage> {
    const body = renderSlackMessage(message, this.config.slash_command);
    const stoppable = message.kind === 'text' && message.stoppable === true && parseTarget(channelId).threadTs !== undefined;
    return stoppable ? withStopButton(body, channelId) : body;
  }

  /** A configured approver: a member of one of `slack.approver_groups`. */
  private isApprover(user: PlatformUser, signal: AbortSignal): Promise<boolean> {
    this.approvers ??= new SlackApprovers(this.config.approver_groups ?? [], (method, args, own) => this.call(method, args, undefined, own), this.logger);
    return this.approvers.isApprover(user.id, signal);
  }

  /** An ephemeral message for one person, in the thread the message they wrote is in. */
  private async whisper(channelId: string, userId: string, _replyTo: string, text: string, signal: AbortSignal): Promise<void> {
    const { channel, threadTs } = parseTarget(channelId);
    const mrkdwn = this.privateText(text);
    const args = { channel, user: userId, text: mrkdwn, ...(threadTs ? { thread_ts: threadTs } : {}) };
    await this.bestEffort('whisper', () => this.call('chat.postEphemeral', args, undefined, signal));
  }

  /**
   * A native stream for answer text in a thread, when the workspace streams; outside DMs only for a thread whose asker
   * is known (Slack requires the recipient there), else undefined (chat.update).
   */
  private openStream(channelId: string): NativeStream | undefined {
    const { channel, threadTs } = parseTarget(channelId);
    if (!threadTs || !this.streaming.usable(channel)) return undefined;
    const userId = this.threadUsers.get(channelId);
    const recipient = userId && this.teamId ? { userId, teamId: this.teamId } : undefined;
    if (!recipient && !isDirect(channel)) return undefined;
    const call = (method: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> => this.call(method, args, channelId, signal);
    return new SlackNativeStream({ channel, threadTs, recipient }, call, this.options.streamLimits, (error) => {
      if (error === undefined) this.streaming.started();
      else this.streaming.startFailed(channel, error);
    });
  }

  /** Slack has no typing indicator for bot messages in channels: nothing to do. */
  async setTyping(_channelId: string, _signal: AbortSignal): Promise<void> {
    return Promise.resolve();
  }

  async react(channelId: string, messageId: string, reaction: ReactionCode, signal: AbortSignal): Promise<void> {
    const name = REACTIONS[reaction];
    const { channel } = parseTarget(channelId);
    await this.bestEffort('react', () => this.call('reactions.add', { channel, timestamp: messageId, name }, undefined, signal));
  }

  /**
   * A Slack thread hangs off a message: an @mention's thread is the user's own message; otherwise (an ask command)
   * an opener message is posted first. Resolves with `<channel>:<ts>`.
   */
  async startThread(channelId: string, name: string, origin: ThreadOrigin, signal: AbortSignal): Promise<string> {
    const { channel } = parseTarget(channelId);
    const requester = origin.requester?.id;
    let ts = origin.fromMessageId;
    if (!ts) {
      const topic = escapeSlackText(name.replace(/\s+/g, ' ').trim() || 'Sandpiper');
      const text = requester && /^[UW][A-Z0-9]+$/.test(requester) ? `<@${requester}> asked: *${topic}*` : `:thread: *${topic}*`;
      const result = await this.call('chat.postMessage', { channel, text, unfurl_links: false, unfurl_media: false }, channel, signal);
      ts = String(result.ts ?? '');
    }
    if (requester) this.rememberThread(channel, requester, ts);
    return threadKey(channel, ts);
  }

  /** Slack threads do not archive. */
  async archiveThread(_threadId: string, _signal: AbortSignal): Promise<void> {
    return Promise.resolve();
  }

  private async openDirect(userId: string, signal: AbortSignal): Promise<string> {
    const result = await this.call('conversations.open', { users: userId }, undefined, signal);
    const channel = (result.channel ?? {}) as { id?: unknown };
    if (typeof channel.id !== 'string') throw new ChannelError('slack conversations.open returned no channel', { code: 'CHANNEL_ERROR' });
    return channel.id;
  }

  private createApp(token: string): ReturnType<typeof createSlackApp> {
    const { config, options } = this;
    const settings = {
      mode: config.mode ?? 'socket', botToken: token, appToken: config.app_token, signingSecret: config.signing_secret, apiUrl: config.api_url,
      webRetries: options.webRetries, socketRetries: options.socketRetries, clientPingTimeoutMs: options.clientPingTimeoutMs,
    };
    return createSlackApp(settings, this.logger, { setState: (state) => this.setState(state), history: this.history, inboundStopped: () => this.inboundStopped });
  }

  /** One `POST /slack/events` (slack.mode = "http"): verified, acknowledged, handled. 503 before the adapter started. */
  async handleHttp(request: SlackHttpRequest): Promise<SlackHttpResponse> {
    const http = this.http;
    if ((this.config.mode ?? 'socket') !== 'http') return { status: 404, body: 'slack.mode is not "http"', contentType: 'text/plain; charset=utf-8' };
    if (!http || this.inboundStopped || this.current === 'stopped') return { status: 503, body: 'not ready', contentType: 'text/plain; charset=utf-8' };
    return http.handle(request);
  }

  private listen(app: App, scope: SlackScope): void {
    const deps = this.interactionDeps(scope);
    // Each invocation's trigger id goes on its events: the gateway's dedup ledger records it first.
    const stamped = (triggerId: string | undefined): InteractionDeps => ({ ...deps, deliver: (event) => this.deliver(withEventId(event, triggerId)) });
    app.event('message', async ({ event }) => this.onMessageEvent(event as RawMessageEvent, scope, deps));
    app.event('app_mention', async ({ event }) => this.onMessageEvent(event as RawMessageEvent, scope, deps));
    app.event('agent_session_stopped', async ({ event, body }) => onSessionStopped(event as RawSessionStopped, stamped(body.event_id)));
    app.command(this.config.slash_command, async ({ command, ack }) => {
      await ack();
      await onSlashCommand(command, stamped(command.trigger_id));
    });
    app.action({ action_id: /^sp:/ }, async ({ body, action, ack }) => {
      await ack();
      if (body.type === 'block_actions') await onBlockAction(body, action as { action_id?: string; value?: string }, stamped(body.trigger_id));
    });
    app.view({ callback_id: /^sp:/, type: 'view_submission' }, async ({ body, ack }) => {
      await ack();
      onViewSubmission(body, stamped((body as { trigger_id?: string }).trigger_id));
    });
    app.error(async (error) => {
      this.logger.warn({ error: truncate(describeError(error), 300) }, 'slack listener failed');
    });
  }

  /** A `message` or `app_mention` event; a mention arrives as both, so the second of the pair is dropped. */
  private onMessageEvent(event: RawMessageEvent, scope: SlackScope, deps: InteractionDeps): void {
    if (!this.seen.firstTime(`${event.channel ?? ''}:${event.ts ?? ''}`)) return;
    const inbound = toInboundMessage(event, scope);
    if (!inbound) return;
    // A command typed as a message is deduplicated by that message (Slack retries it like any event).
    const stamped = { ...deps, deliver: (command: InboundEvent) => this.deliver(withEventId(command, `msg:${inbound.conversation.channelId}:${inbound.messageId}`)) };
    if (onBangCommand(inbound.text, inbound.user, inbound.conversation, stamped)) return;
    if (inbound.conversation.kind === 'thread') {
      const { channel, threadTs } = parseTarget(inbound.conversation.channelId);
      if (threadTs) this.rememberThread(channel, inbound.user.id, threadTs);
    }
    this.deliver(inbound);
  }

  private interactionDeps(scope: SlackScope): InteractionDeps {
    return {
      scope,
      slash: this.config.slash_command,
      deliver: (event) => this.deliver(event),
      openView: async (triggerId, view) => {
        try {
          await this.call('views.open', { trigger_id: triggerId, view }, undefined, this.controller.signal);
          return true;
        } catch (error) {
          this.logger.warn({ error: describeError(error) }, 'slack modal could not be opened');
          return false;
        }
      },
      privateReply: (target, text) => this.privateReply(target, text),
      recentThread: (channel, userId) => this.recentThreads.get(`${channel}:${userId}`),
      replaceWithText: (channel, ts, text) => this.bestEffort('remove stop button', () => this.call('chat.update', { channel, ts, text, blocks: [] }, undefined, this.controller.signal)),
    };
  }

  /** A private message's mrkdwn: command hints for this app's slash command, within Slack's ephemeral text limit. */
  private privateText(text: string): string {
    return truncate(toMrkdwn(slackCommandHints(text, this.config.slash_command)), 3_000);
  }

  /** A private answer: through the interaction's response_url, else an ephemeral message. Never throws. */
  private async privateReply(target: ReplyTarget, text: string): Promise<void> {
    const mrkdwn = this.privateText(text);
    const signal = this.controller.signal;
    if (target.responseUrl && (await postToResponseUrl(target.responseUrl, mrkdwn, this.logger, signal))) return;
    if (!target.channelId) return;
    const thread = target.threadTs ? { thread_ts: target.threadTs } : {};
    await this.bestEffort('ephemeral reply', () => this.call('chat.postEphemeral', { channel: target.channelId, user: target.userId, text: mrkdwn, ...thread }, undefined, signal));
  }

  private rememberThread(channel: string, userId: string, threadTs: string): void {
    this.recentThreads.set(`${channel}:${userId}`, threadTs);
    this.threadUsers.set(threadKey(channel, threadTs), userId);
  }

  /**
   * One Web API call. On HTTP 429 the gateway is told (a `rate-limited` event for `channelId`, so the renderer
   * stretches its cadence), the call waits out `retry-after` and is retried; it throws a RATE_LIMITED ChannelError
   * after three refusals.
   */
  private async call(method: string, args: Record<string, unknown>, channelId: string | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    const app = this.app;
    if (!app) throw new ChannelError('slack adapter is not started', { code: 'CHANNEL_ERROR' });
    for (let attempt = 1; ; attempt += 1) {
      if (signal.aborted) throw new ChannelError(`slack ${method} cancelled`, { code: 'CANCELLED' });
      try {
        return (await untilAborted(app.client.apiCall(method, args), signal, () => slackCancelled(method))) as unknown as Record<string, unknown>;
      } catch (error) {
        const retryAfterMs = rateLimitedMs(error);
        if (retryAfterMs === undefined) throw toSlackError(method, error);
        this.logger.debug({ method, retryAfterMs }, 'slack rate limited');
        if (channelId) this.deliver({ type: 'rate-limited', channelId, retryAfterMs });
        if (attempt >= RATE_LIMIT_ATTEMPTS) {
          throw new ChannelError(`slack ${method} rate limited`, { code: 'RATE_LIMITED', retryable: true, retryAfterMs });
        }
        await sleep(Math.min(retryAfterMs, MAX_RATE_LIMIT_WAIT_MS), signal).catch(() => undefined);
      }
    }
  }
}
