/**
 * The Discord adapter: discord.js translated to and from the ChannelAdapter port. One client for REST and the gateway,
 * or, with leased shards (ADR 0022), a REST-only client plus one gateway client per shard this instance holds.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Events, RESTEvents, Routes, type APIUser, type RateLimitData } from 'discord.js';
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
import { toChannelError } from '../channel-errors.js';
import { ChannelError, describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { discordClientOptions } from './discord-client-options.js';
import { registerCommands } from './discord-commands.js';
import { DiscordHistory } from './discord-history.js';
import type { DiscordScope } from './discord-events.js';
import { DISCORD_MAX_MESSAGE_LENGTH } from './discord-format.js';
import { DISCORD_MAX_FORM_FIELDS } from './discord-forms.js';
import { listenToClient } from './discord-listeners.js';
import { DiscordRequests } from './discord-requests.js';
import { DiscordShardClients } from './discord-shard-clients.js';
import { ShardKeeper, type DiscordClusterOptions } from './discord-shard-keeper.js';
import { shardCountOf, singleSharding, type ShardConfig } from './discord-sharding.js';

/** How long a stop waits for a handshake under way to end before it destroys the client anyway. */
const HANDSHAKE_WAIT_MS = 10_000;
/** Discord's attachment hosts; attachment URLs are signed, so no token is sent. */
const FILE_ORIGINS = ['https://cdn.discordapp.com', 'https://media.discordapp.net'];

export interface DiscordAdapterConfig {
  token?: string | undefined;
  guild_id?: string | undefined;
  channel_ids: readonly string[];
  api_url?: string | undefined;
  /** Global REST request budget per second (discord.js default 50). */
  global_requests_per_second?: number | undefined;
  thread_participants?: 'owner' | 'linked';
  /** Role ids whose members may decide any approval card. */
  approver_roles?: readonly string[];
  /** Direct messages are conversations (default true). */
  dm?: boolean;
  /** Total shards ('auto': Discord's recommendation) and the ids this instance always runs (empty: leased). */
  shard_count?: ShardConfig['shard_count'];
  shards?: readonly number[];
}

export interface DiscordAdapterOptions {
  /** Tests turn the identify throttle (5 s between new sessions, as Discord requires) off. */
  identifyThrottle?: boolean;
  /** Cluster mode (PostgreSQL): with `discord.shards` empty, the shards are leased through these (ADR 0022). */
  cluster?: DiscordClusterOptions;
  /**
   * Identify pacing shared with other instances (ADR 0052), built from `max_concurrency` of /gateway/bot; absent or
   * undefined: discord.js's own throttle (this process only).
   */
  identify?: (
    maxConcurrency: number,
  ) => { waitForIdentify(shardId: number, signal: AbortSignal): Promise<void> } | undefined;
}

export class DiscordAdapter extends AdapterBase implements ChannelAdapter {
  readonly platform = 'discord';
  readonly capabilities: ChannelCapabilities = {
    maxMessageLength: DISCORD_MAX_MESSAGE_LENGTH,
    canEdit: true,
    canThread: true,
    answerPosts: true,
  };
  readonly features: ChannelFeatures;
  private readonly client: Client;
  /** Posts, edits, reactions, threads and DM channels, on the REST side of `client`. */
  private readonly requests: DiscordRequests;
  private readonly controller = new AbortController();
  private scope: DiscordScope | undefined;
  readonly history: DiscordHistory;
  /** Leased shards only: one gateway client per held shard, and the keeper deciding which (ADR 0022). */
  private shardClients: DiscordShardClients | undefined;
  /** The single client's login: a stop waits for it to settle before the destroy (its failure is start's to report). */
  private loggingIn: Promise<unknown> | undefined;
  private keeper: ShardKeeper | undefined;
  private commandsRegistered = false;

  constructor(
    private readonly config: DiscordAdapterConfig,
    logger: Logger,
    private readonly options: DiscordAdapterOptions = {},
  ) {
    super(logger, 'discord');
    this.client = new Client(discordClientOptions(config, options));
    this.requests = new DiscordRequests(this.client);
    this.history = new DiscordHistory(
      {
        gatewayClients: () => this.shardClients?.gatewayClients() ?? [this.client],
        clientFor: (id) => this.shardClients?.clientFor(id) ?? Promise.resolve(this.client),
      },
      () => this.scope,
      config.channel_ids,
    );
    this.features = {
      forms: { maxFields: DISCORD_MAX_FORM_FIELDS },
      history: this.history,
      attachments: { access: () => this.attachmentAccess() },
      ephemeral: { whisper: (...args) => this.whisper(...args) },
      direct: { conversations: config.dm ?? true, open: (userId, signal) => this.requests.openDirect(userId, signal) },
      approvers: { isApprover: (user) => this.isApprover(user) },
    };
  }

  get threadParticipants(): 'owner' | 'linked' {
    return this.config.thread_participants ?? 'owner';
  }

  commandText(name: CommandName): string {
    return `\`/${name}\``;
  }

  private attachmentAccess(): AttachmentAccess {
    return { origins: attachmentOrigins(FILE_ORIGINS, this.config.api_url), headers: {} };
  }

  async start(handler: InboundHandler, signal: AbortSignal): Promise<void> {
    const token = this.config.token;
    if (!token) throw new ChannelError('discord.token is not set', { code: 'CONFIG_INVALID' });
    this.handler = handler;
    this.current = 'connecting';
    // An abort is the gateway shutting down: stopping is best effort, nothing is left to act on a failure.
    signal.addEventListener('abort', () => void this.stop().catch(() => undefined), { once: true });
    this.listenRest(this.client);
    try {
      const cluster = this.options.cluster;
      if (cluster && (this.config.shards ?? []).length === 0) await this.startLeased(token, cluster, signal);
      else await this.startSingle(token, signal);
      this.throwIfStopped();
    } catch (error) {
      if (this.state() !== 'stopped') this.current = 'failed';
      throw error instanceof ChannelError ? error : toChannelError('discord login', error);
    }
    this.current = 'connected';
  }

  /** One client for REST and the gateway, running the configured shards (all of them by default). */
  private async startSingle(token: string, signal: AbortSignal): Promise<void> {
    this.client.rest.setToken(token);
    Object.assign(this.client.options, await singleSharding(this.config, this.client.rest));
    // A stop while the shard count was asked for: no login after it (the client would connect after the stop).
    this.throwIfStopped();
    this.listen(this.client);
    this.history.watch(this.client);
    const ready = new Promise<void>((resolve, reject) => {
      this.client.once(Events.ClientReady, () => {
        // At once, not after `login` resolves: discord.js hands over events it queued during startup right after this.
        this.scope = this.scopeOf(this.client.user?.id ?? '');
        resolve();
      });
      // The gateway's shutdown, or this adapter's own stop, ends the start.
      AbortSignal.any([signal, this.controller.signal]).addEventListener(
        'abort',
        () => reject(new ChannelError('discord start aborted', { code: 'CANCELLED' })),
        { once: true },
      );
    });
    // When login fails, nobody awaits `ready` any more; a later abort must not become an unhandled rejection.
    ready.catch(() => undefined);
    const login = this.client.login(token);
    this.loggingIn = login;
    // A failed login rejects here (start reports it); a stop rejects `ready`.
    await Promise.race([login, ready]);
    await ready;
    this.scope ??= this.scopeOf(this.client.user?.id ?? '');
    this.registerCommandsOnce(this.client);
  }

  /**
   * Leased shards (ADR 0022): the adapter's client only speaks REST, so an instance holding no shard still posts and
   * edits; the keeper connects the shards this instance holds, each on a client of its own.
   */
  private async startLeased(token: string, cluster: DiscordClusterOptions, signal: AbortSignal): Promise<void> {
    this.client.rest.setToken(token);
    const bot = (await this.client.rest.get(Routes.user('@me'), { signal })) as APIUser;
    this.scope = this.scopeOf(bot.id);
    const count = await shardCountOf(this.config, this.client.rest);
    this.throwIfStopped();
    let started = false;
    const clients = new DiscordShardClients({
      rest: this.client,
      token,
      count,
      logger: this.logger,
      create: (sharding) =>
        new Client(
          discordClientOptions(this.config, this.options, sharding, (shardId, identifySignal) =>
            clients.beforeIdentify(shardId, identifySignal),
          ),
        ),
      wire: (client) => {
        this.listen(client);
        this.history.watch(client);
      },
      onReady: (client) => this.registerCommandsOnce(client),
      // Shards claimed during the start are covered by the gateway's start-up catch-up.
      onTakeover: (lostAtMs) => started && this.history.gap(lostAtMs),
      onFailed: (shardId) => void this.keeper?.giveUp(shardId),
    });
    this.shardClients = clients;
    this.keeper = new ShardKeeper(cluster, bot.id, count, clients, this.logger);
    clients.gateOn(this.keeper);
    await this.keeper.start();
    await clients.settled();
    // A stop during the first round found no keeper yet: give back what the round claimed.
    if (this.current === 'stopped') await this.keeper.stop();
    this.throwIfStopped();
    started = true;
    this.logger.info({ shards: clients.shardIds(), count }, 'discord shards connected');
  }

  private throwIfStopped(): void {
    if (this.current === 'stopped') throw new ChannelError('discord start aborted', { code: 'CANCELLED' });
  }

  private registerCommandsOnce(client: Client): void {
    if (this.commandsRegistered) return;
    this.commandsRegistered = true;
    const applicationId = client.application?.id ?? client.user?.id ?? '';
    void registerCommands(
      this.client.rest,
      { applicationId, guildId: this.config.guild_id },
      this.logger,
      this.controller.signal,
    );
  }

  async stop(): Promise<void> {
    if (this.current === 'stopped') return;
    this.current = 'stopped';
    this.handler = undefined;
    this.controller.abort();
    // Disconnects first, then releases the leases: a successor never identifies while this instance still does.
    await this.keeper
      ?.stop()
      .catch((error: unknown) =>
        this.logger.warn({ error: describeError(error) }, 'discord shard leases not released'),
      );
    await this.shardClients?.disconnectAll();
    // @discordjs/ws never finishes a destroy that comes while a shard waits for READY (the shard's failed wait
    // reconnects it and drops the close the destroy awaits): a stop during the handshake lets it end first, within
    // a bound, as Discord answers an IDENTIFY at once.
    if (this.loggingIn)
      await Promise.race([Promise.allSettled([this.loggingIn]), delay(HANDSHAKE_WAIT_MS, undefined, { ref: false })]);
    await this.client.destroy();
  }

  post(channelId: string, message: OutboundMessage, signal: AbortSignal): Promise<string> {
    return this.requests.post(channelId, message, signal);
  }

  edit(channelId: string, messageId: string, message: OutboundMessage, signal: AbortSignal): Promise<void> {
    return this.requests.edit(channelId, messageId, message, signal);
  }

  /** Discord has no private messages outside interactions: a short reply to the writer's message (it pings nobody). */
  private async whisper(
    channelId: string,
    _userId: string,
    replyTo: string,
    text: string,
    signal: AbortSignal,
  ): Promise<void> {
    await this.bestEffort('whisper', () => this.requests.reply(channelId, replyTo, text, signal));
  }

  /** A configured approver: the clicking member holds one of `discord.approver_roles` (roles come with the interaction). */
  private isApprover(user: PlatformUser): Promise<boolean> {
    const roles = this.config.approver_roles ?? [];
    return Promise.resolve(roles.length > 0 && (user.roles ?? []).some((role) => roles.includes(role)));
  }

  async setTyping(channelId: string, signal: AbortSignal): Promise<void> {
    await this.bestEffort('typing', () => this.requests.typing(channelId, signal));
  }

  async react(channelId: string, messageId: string, reaction: ReactionCode, signal: AbortSignal): Promise<void> {
    await this.bestEffort('react', () => this.requests.react(channelId, messageId, reaction, signal));
  }

  startThread(channelId: string, name: string, origin: ThreadOrigin, signal: AbortSignal): Promise<string> {
    return this.requests.startThread(channelId, name, origin, signal);
  }

  async archiveThread(threadId: string, signal: AbortSignal): Promise<void> {
    await this.bestEffort('archive', () => this.requests.archiveThread(threadId, signal));
  }

  private listen(client: Client): void {
    listenToClient(client, {
      logger: this.logger,
      scope: () => this.scope,
      ready: () => this.handler !== undefined,
      stopped: () => this.current === 'stopped',
      deliver: (event) => this.deliver(event),
      setState: (state) => this.setState(state),
    });
  }

  private listenRest(client: Client): void {
    client.rest.on(RESTEvents.RateLimited, (info: RateLimitData) => this.onRateLimited(info));
  }

  private scopeOf(botId: string): DiscordScope {
    return { botId, guildId: this.config.guild_id, channelIds: new Set(this.config.channel_ids) };
  }

  private onRateLimited(info: RateLimitData): void {
    this.logger.debug({ route: info.route, retryAfterMs: info.retryAfter }, 'discord rate limited');
    if (info.route.startsWith('/channels/') && info.majorParameter) {
      this.deliver({ type: 'rate-limited', channelId: info.majorParameter, retryAfterMs: info.retryAfter });
    }
  }
}
