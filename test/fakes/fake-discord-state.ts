/** State of the fake Discord: guild, channels, threads, messages, interactions, plus event injection helpers. */

export interface FakeUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string;
  avatar: null;
  bot?: boolean;
}

export interface FakeChannel {
  id: string;
  type: number;
  name: string;
  parent_id?: string;
  archived: boolean;
}

export interface FakeMessage {
  id: string;
  channel_id: string;
  author: FakeUser;
  content: string;
  embeds: Record<string, unknown>[];
  components: Record<string, unknown>[];
  /** Every content the message showed, in order (post, then each edit). */
  history: string[];
  edits: number;
  reactions: string[];
  /** The message this one replies to (`message_reference`). */
  replyTo: string | undefined;
  createdAt: number;
  editedAt: number;
}

export interface FakeInteraction {
  id: string;
  token: string;
  /** Callback types received (4 reply, 5 deferred, 9 modal, ...). */
  callbacks: number[];
  ephemeral: boolean;
  modal?: Record<string, unknown>;
  /** The latest content of the (deferred) reply. */
  reply?: string;
  /** Autocomplete choices answered (callback type 8). */
  choices?: { name: string; value: unknown }[];
  ackAt?: number;
  createdAt: number;
}

export const GUILD_ID = '200000000000000001';
const EPOCH = 1420070400000n;

export class FakeDiscordState {
  readonly bot: FakeUser = { id: '100000000000000001', username: 'sandpiper', discriminator: '0', global_name: 'sandpiper', avatar: null, bot: true };
  readonly applicationId = '100000000000000001';
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  commands: unknown[] = [];
  private counter = 0n;

  constructor(channelIds: string[], private readonly dispatch: (t: string, d: unknown) => void) {
    for (const id of channelIds) this.channels.set(id, { id, type: 0, name: `channel-${id.slice(-3)}`, archived: false });
  }

  snowflake(): string {
    this.counter += 1n;
    return String(((BigInt(Date.now()) - EPOCH) << 22n) | (this.counter & 0x3fffffn));
  }

  /** Messages in a channel, oldest first. */
  messagesIn(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId);
  }

  /** Threads whose parent is `channelId`, oldest first. */
  threadsOf(channelId: string): FakeChannel[] {
    return [...this.channels.values()].filter((c) => c.parent_id === channelId);
  }

  channelPayload(channel: FakeChannel): Record<string, unknown> {
    if (channel.type === 1) return { id: channel.id, type: 1, recipients: [], last_message_id: null };
    const base = { id: channel.id, type: channel.type, name: channel.name, guild_id: GUILD_ID, position: 0, permission_overwrites: [] };
    if (channel.type !== 11) return base;
    return {
      ...base,
      parent_id: channel.parent_id,
      owner_id: this.bot.id,
      member_count: 1,
      message_count: 0,
      thread_metadata: { archived: channel.archived, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false },
    };
  }

  guildCreate(): Record<string, unknown> {
    const all = [...this.channels.values()];
    return {
      id: GUILD_ID, name: 'fake guild', icon: null, owner_id: '400000000000000099', afk_timeout: 300, verification_level: 0,
      default_message_notifications: 0, explicit_content_filter: 0, mfa_level: 0, nsfw_level: 0, premium_tier: 0, system_channel_flags: 0,
      roles: [{ id: GUILD_ID, name: '@everyone', permissions: '1071698660929', position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }],
      channels: all.filter((c) => c.type !== 11 && c.type !== 1).map((c) => this.channelPayload(c)),
      threads: all.filter((c) => c.type === 11 && !c.archived).map((c) => this.channelPayload(c)),
      members: [], emojis: [], stickers: [], features: [], voice_states: [], presences: [], stage_instances: [], guild_scheduled_events: [],
      member_count: 2, joined_at: new Date().toISOString(), large: false, unavailable: false, preferred_locale: 'en-US',
    };
  }

  messagePayload(message: FakeMessage): Record<string, unknown> {
    return {
      id: message.id, channel_id: message.channel_id, author: message.author, content: message.content,
      timestamp: new Date(message.createdAt).toISOString(), edited_timestamp: message.edits ? new Date(message.editedAt).toISOString() : null,
      tts: false, mention_everyone: false, mentions: [], mention_roles: [], attachments: [], embeds: message.embeds,
      components: message.components, pinned: false, type: 0, flags: 0,
    };
  }

  createMessage(channelId: string, author: FakeUser, body: Record<string, unknown>): FakeMessage {
    const content = typeof body.content === 'string' ? body.content : '';
    const message: FakeMessage = {
      id: this.snowflake(), channel_id: channelId, author, content,
      embeds: (body.embeds as Record<string, unknown>[] | undefined) ?? [], components: (body.components as Record<string, unknown>[] | undefined) ?? [],
      history: [content], edits: 0, reactions: [], createdAt: Date.now(), editedAt: Date.now(),
      replyTo: (body.message_reference as { message_id?: string } | undefined)?.message_id,
    };
    this.messages.set(message.id, message);
    return message;
  }

  /** How many times a DM channel was opened (POST /users/@me/channels). */
  dmOpens = 0;

  /** The DM channel with a user (type 1), created on first use as Discord does. */
  openDm(recipientId: string): FakeChannel {
    this.dmOpens++;
    const id = `9${recipientId.slice(1)}`;
    let channel = this.channels.get(id);
    if (!channel) {
      channel = { id, type: 1, name: `dm-${recipientId}`, archived: false };
      this.channels.set(id, channel);
    }
    return channel;
  }

  createThread(parentId: string, name: string, fromMessageId?: string): FakeChannel {
    const thread: FakeChannel = { id: fromMessageId ?? this.snowflake(), type: 11, name, parent_id: parentId, archived: false };
    this.channels.set(thread.id, thread);
    this.dispatch('THREAD_CREATE', { ...this.channelPayload(thread), newly_created: true });
    return thread;
  }

  /** A user writes a message; `mentionBot` prefixes `<@bot>` and lists the bot in `mentions`. */
  injectMessage(channelId: string, author: FakeUser, content: string, mentionBot = false, attachments: Record<string, unknown>[] = []): FakeMessage {
    const channel = this.channels.get(channelId);
    if (channel?.archived) channel.archived = false; // a user message unarchives a thread, as on Discord
    const text = mentionBot ? `<@${this.bot.id}> ${content}` : content;
    const message = this.createMessage(channelId, author, { content: text });
    // A direct message (a type 1 channel) carries no guild and no member, as on Discord.
    const guild = channel?.type === 1 ? { channel_type: 1 } : { guild_id: GUILD_ID, member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 } };
    this.dispatch('MESSAGE_CREATE', { ...this.messagePayload(message), ...guild, mentions: mentionBot ? [this.bot] : [], attachments });
    return message;
  }

  /** A user clicks a button on a message. */
  clickButton(messageId: string, customId: string, user: FakeUser): FakeInteraction {
    const message = this.messages.get(messageId);
    if (!message) throw new Error('no such message');
    return this.interact(3, message.channel_id, user, { custom_id: customId, component_type: 2 }, this.messagePayload(message));
  }

  /** A user runs a slash command in a channel. */
  slashCommand(name: string, channelId: string, user: FakeUser, options: Record<string, string> = {}): FakeInteraction {
    const opts = Object.entries(options).map(([key, value]) => ({ name: key, type: 3, value }));
    return this.interact(2, channelId, user, { id: this.snowflake(), name, type: 1, options: opts });
  }

  /** A user types into an option with autocomplete (`focused` is the option being typed; the others as given). */
  autocomplete(name: string, channelId: string, user: FakeUser, focused: string, typed: string, options: Record<string, string> = {}): FakeInteraction {
    const opts = Object.entries(options).map(([key, value]) => ({ name: key, type: 3, value }));
    opts.push({ name: focused, type: 3, value: typed, focused: true } as never);
    return this.interact(4, channelId, user, { id: this.snowflake(), name, type: 1, options: opts });
  }

  /** A user submits a modal we showed them. */
  submitModal(customId: string, channelId: string, user: FakeUser, fields: Record<string, string>): FakeInteraction {
    const rows = Object.entries(fields).map(([key, value]) => ({ type: 1, components: [{ type: 4, custom_id: key, value }] }));
    return this.interact(5, channelId, user, { custom_id: customId, components: rows });
  }

  private interact(type: number, channelId: string, user: FakeUser, data: Record<string, unknown>, message?: unknown): FakeInteraction {
    const channel = this.channels.get(channelId);
    const interaction: FakeInteraction = { id: this.snowflake(), token: `itok-${this.counter}`, callbacks: [], ephemeral: false, createdAt: Date.now() };
    this.interactions.set(interaction.id, interaction);
    this.dispatch('INTERACTION_CREATE', {
      id: interaction.id, application_id: this.applicationId, type, token: interaction.token, version: 1,
      guild_id: GUILD_ID, channel_id: channelId, channel: channel ? this.channelPayload(channel) : { id: channelId, type: 0 },
      member: { user, roles: [], permissions: '1071698660929', joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
      app_permissions: '1071698660929', locale: 'en-US', guild_locale: 'en-US', entitlements: [],
      authorizing_integration_owners: { 0: GUILD_ID }, context: 0, attachment_size_limit: 10485760, data,
      ...(message === undefined ? {} : { message }),
    });
    return interaction;
  }
}
