/**
 * State of the fake Discord: guilds, channels, threads, messages, interactions, plus event injection helpers.
 * Guild 0 is `GUILD_ID` with the configured channels; guild K >= 1 (`guildId(K)`) has one text channel
 * (`guildChannelId(K)`). With the guild ids chosen here guild K lives on shard `(GUILD_SHARD_BASE + K) % shardCount`.
 */

export interface FakeUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string;
  avatar: null;
  public_flags: number;
  flags: number;
  primary_guild: null;
  bot?: boolean;
}

export interface FakeChannel {
  id: string;
  type: number;
  name: string;
  parent_id?: string;
  archived: boolean;
  /** The other person of a DM channel (type 1). */
  recipient?: FakeUser;
  /** The guild of a guild channel or thread (absent for DMs). */
  guildId?: string;
}

export interface FakeGuild {
  id: string;
  name: string;
  /** Its text channels. */
  channelIds: string[];
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
  /** The post's nonce when it asked for `enforce_nonce` (one message per nonce and author, as on Discord). */
  nonce?: string;
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
  /** Second (and later) callbacks, refused with 40060: the interaction was answered more than once. */
  refusedCallbacks?: number;
}

export const GUILD_ID = '200000000000000001';
/** `(GUILD_ID >> 22)`: guild K (K >= 1) has the id `(GUILD_SHARD_BASE + K) << 22`. */
export const GUILD_SHARD_BASE = BigInt(GUILD_ID) >> 22n;

/** The id of guild K (K = 0 is GUILD_ID). */
export function guildId(k: number): string {
  return k === 0 ? GUILD_ID : String((GUILD_SHARD_BASE + BigInt(k)) << 22n);
}

/** The text channel of guild K >= 1 (guild 0 has the configured `channelIds`). */
export function guildChannelId(k: number): string {
  return String(300000000000000001n + BigInt(k) * 1000n);
}

/** Numeric order of two snowflakes (decimal text). */
export function compareSnowflakes(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
const EPOCH = 1420070400000n;

/** Roles every fake guild has besides @everyone (give them to members with `memberRoles`). */
export const FAKE_ROLES = { approvers: '700000000000000001', members: '700000000000000002' } as const;

export class FakeDiscordState {
  readonly bot: FakeUser = {
    id: '100000000000000001',
    username: 'sandpiper',
    discriminator: '0',
    global_name: 'sandpiper',
    avatar: null,
    public_flags: 0,
    flags: 0,
    primary_guild: null,
    bot: true,
  };
  readonly applicationId = '100000000000000001';
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  /** Role ids of server members (user id → roles), sent in the `member` of their interactions. */
  readonly memberRoles = new Map<string, string[]>();
  readonly guilds: FakeGuild[] = [];
  commands: unknown[] = [];
  private counter = 0n;

  constructor(
    channelIds: string[],
    private readonly dispatch: (t: string, d: unknown) => void,
    guildCount = 1,
  ) {
    for (let k = 0; k < Math.max(1, guildCount); k++) {
      const ids = k === 0 ? channelIds : [guildChannelId(k)];
      const guild = { id: guildId(k), name: k === 0 ? 'fake guild' : `fake guild ${k}`, channelIds: ids };
      this.guilds.push(guild);
      for (const id of ids)
        this.channels.set(id, { id, type: 0, name: `channel-${id.slice(-3)}`, archived: false, guildId: guild.id });
    }
  }

  /** The guild a channel or thread belongs to (GUILD_ID when unknown, as before guilds were many). */
  guildOf(channelId: string): string {
    return this.channels.get(channelId)?.guildId ?? GUILD_ID;
  }

  snowflake(): string {
    this.counter += 1n;
    return String(((BigInt(Date.now()) - EPOCH) << 22n) | (this.counter & 0x3fffffn));
  }

  /** Messages in a channel, oldest first. */
  messagesIn(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId);
  }

  /**
   * A channel's history as Discord's REST API pages it: with `after`, the `limit` messages right after that id; else
   * the newest ones before `before` (or the newest). Newest first in both cases, as Discord answers.
   */
  history(
    channelId: string,
    page: { after?: string | undefined; before?: string | undefined; limit: number },
  ): FakeMessage[] {
    const all = this.messagesIn(channelId).sort((a, b) => compareSnowflakes(a.id, b.id));
    if (page.after !== undefined) {
      const after = page.after;
      return all
        .filter((m) => compareSnowflakes(m.id, after) > 0)
        .slice(0, page.limit)
        .reverse();
    }
    const before = page.before;
    const older = before === undefined ? all : all.filter((m) => compareSnowflakes(m.id, before) < 0);
    return older.slice(-page.limit).reverse();
  }

  /** Threads whose parent is `channelId`, oldest first. */
  threadsOf(channelId: string): FakeChannel[] {
    return [...this.channels.values()].filter((c) => c.parent_id === channelId);
  }

  channelPayload(channel: FakeChannel): Record<string, unknown> {
    if (channel.type === 1)
      return {
        id: channel.id,
        type: 1,
        flags: 0,
        recipients: channel.recipient ? [channel.recipient] : [],
        last_message_id: null,
      };
    const base = {
      id: channel.id,
      type: channel.type,
      name: channel.name,
      guild_id: channel.guildId ?? GUILD_ID,
      position: 0,
      permission_overwrites: [],
    };
    if (channel.type !== 11) return base;
    return {
      ...base,
      parent_id: channel.parent_id,
      owner_id: this.bot.id,
      member_count: 1,
      message_count: 0,
      thread_metadata: {
        archived: channel.archived,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
        locked: false,
      },
    };
  }

  /** GUILD_CREATE payloads of the guilds on `shard` of `shardCount`. */
  guildCreates(shard: number, shardCount: number): Record<string, unknown>[] {
    return this.guilds
      .filter((guild) => Number((BigInt(guild.id) >> 22n) % BigInt(shardCount)) === shard)
      .map((guild) => this.guildCreate(guild.id));
  }

  guildCreate(id = GUILD_ID): Record<string, unknown> {
    const all = [...this.channels.values()].filter((channel) => (channel.guildId ?? GUILD_ID) === id);
    const name = this.guilds.find((guild) => guild.id === id)?.name ?? 'fake guild';
    return {
      id,
      name,
      icon: null,
      owner_id: '400000000000000099',
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      premium_tier: 0,
      system_channel_flags: 0,
      roles: [
        {
          id,
          name: '@everyone',
          permissions: '1071698660929',
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
        ...Object.entries(FAKE_ROLES).map(([role, roleId], index) => ({
          id: roleId,
          name: role,
          permissions: '0',
          position: index + 1,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        })),
      ],
      channels: all.filter((c) => c.type !== 11 && c.type !== 1).map((c) => this.channelPayload(c)),
      threads: all.filter((c) => c.type === 11 && !c.archived).map((c) => this.channelPayload(c)),
      members: [],
      emojis: [],
      stickers: [],
      features: [],
      voice_states: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      member_count: 2,
      joined_at: new Date().toISOString(),
      large: false,
      unavailable: false,
      preferred_locale: 'en-US',
    };
  }

  messagePayload(message: FakeMessage): Record<string, unknown> {
    return {
      id: message.id,
      channel_id: message.channel_id,
      author: message.author,
      content: message.content,
      timestamp: new Date(message.createdAt).toISOString(),
      edited_timestamp: message.edits ? new Date(message.editedAt).toISOString() : null,
      tts: false,
      mention_everyone: false,
      mentions: message.content.includes(`<@${this.bot.id}>`) ? [this.bot] : [],
      mention_roles: [],
      attachments: [],
      embeds: message.embeds,
      components: withComponentIds(message.components),
      pinned: false,
      type: 0,
      flags: 0,
    };
  }

  createMessage(channelId: string, author: FakeUser, body: Record<string, unknown>): FakeMessage {
    const nonce = body.enforce_nonce === true && typeof body.nonce === 'string' ? body.nonce : undefined;
    if (nonce !== undefined) {
      // Discord: "another message created by the same author with the same nonce ... will be returned".
      const earlier = [...this.messages.values()].find(
        (entry) => entry.nonce === nonce && entry.author.id === author.id && entry.channel_id === channelId,
      );
      if (earlier !== undefined) return earlier;
    }
    const content = typeof body.content === 'string' ? body.content : '';
    const message: FakeMessage = {
      id: this.snowflake(),
      channel_id: channelId,
      author,
      content,
      embeds: (body.embeds as Record<string, unknown>[] | undefined) ?? [],
      components: (body.components as Record<string, unknown>[] | undefined) ?? [],
      history: [content],
      edits: 0,
      reactions: [],
      createdAt: Date.now(),
      editedAt: Date.now(),
      replyTo: (body.message_reference as { message_id?: string } | undefined)?.message_id,
      ...(nonce === undefined ? {} : { nonce }),
    };
    this.messages.set(message.id, message);
    return message;
  }

  /** How many times a DM channel was opened (POST /users/@me/channels). */
  dmOpens = 0;

  /** Users seen (by `FakeDiscord.user`), so a DM channel can name its recipient. */
  readonly users = new Map<string, FakeUser>();

  /** The DM channel with a user (type 1), created on first use as Discord does. */
  openDm(recipientId: string): FakeChannel {
    this.dmOpens++;
    const id = `9${recipientId.slice(1)}`;
    let channel = this.channels.get(id);
    if (!channel) {
      const recipient = this.users.get(recipientId);
      channel = { id, type: 1, name: `dm-${recipientId}`, archived: false, ...(recipient ? { recipient } : {}) };
      this.channels.set(id, channel);
    }
    return channel;
  }

  createThread(parentId: string, name: string, fromMessageId?: string): FakeChannel {
    const thread: FakeChannel = {
      id: fromMessageId ?? this.snowflake(),
      type: 11,
      name,
      parent_id: parentId,
      archived: false,
      guildId: this.guildOf(parentId),
    };
    this.channels.set(thread.id, thread);
    this.dispatch('THREAD_CREATE', { ...this.channelPayload(thread), newly_created: true });
    return thread;
  }

  /**
   * A user writes a message; `mentionBot` prefixes `<@bot>` and lists the bot in `mentions`; `replyTo` makes it a
   * reply (type 19 with a message reference) to that message of the same channel; `attachments` are Discord attachment objects.
   */
  injectMessage(
    channelId: string,
    author: FakeUser,
    content: string,
    mentionBot = false,
    replyTo?: string,
    attachments: Record<string, unknown>[] = [],
  ): FakeMessage {
    const channel = this.channels.get(channelId);
    if (channel?.archived) channel.archived = false; // a user message unarchives a thread, as on Discord
    const text = mentionBot ? `<@${this.bot.id}> ${content}` : content;
    const message = this.createMessage(channelId, author, { content: text });
    // A direct message (a type 1 channel) carries no guild and no member, as on Discord.
    const guild =
      channel?.type === 1
        ? { channel_type: 1 }
        : {
            guild_id: this.guildOf(channelId),
            member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
          };
    const referenced = replyTo === undefined ? undefined : this.messages.get(replyTo);
    const reply = referenced
      ? {
          type: 19,
          message_reference: { type: 0, channel_id: channelId, message_id: referenced.id },
          referenced_message: this.messagePayload(referenced),
        }
      : {};
    this.dispatch('MESSAGE_CREATE', {
      ...this.messagePayload(message),
      ...guild,
      mentions: mentionBot ? [this.bot] : [],
      ...reply,
      attachments,
    });
    return message;
  }

  /** A user clicks a button on a message. */
  clickButton(messageId: string, customId: string, user: FakeUser): FakeInteraction {
    const message = this.messages.get(messageId);
    if (!message) throw new Error('no such message');
    return this.interact(
      3,
      message.channel_id,
      user,
      { custom_id: customId, component_type: 2 },
      this.messagePayload(message),
    );
  }

  /** A user runs a slash command in a channel. */
  slashCommand(name: string, channelId: string, user: FakeUser, options: Record<string, string> = {}): FakeInteraction {
    const opts = Object.entries(options).map(([key, value]) => ({ name: key, type: 3, value }));
    return this.interact(2, channelId, user, { id: this.snowflake(), name, type: 1, options: opts });
  }

  /** A user types into an option with autocomplete (`focused` is the option being typed; the others as given). */
  autocomplete(
    name: string,
    channelId: string,
    user: FakeUser,
    focused: string,
    typed: string,
    options: Record<string, string> = {},
  ): FakeInteraction {
    const opts = Object.entries(options).map(([key, value]) => ({ name: key, type: 3, value }));
    opts.push({ name: focused, type: 3, value: typed, focused: true } as never);
    return this.interact(4, channelId, user, { id: this.snowflake(), name, type: 1, options: opts });
  }

  /** A user submits a modal we showed them. */
  submitModal(customId: string, channelId: string, user: FakeUser, fields: Record<string, string>): FakeInteraction {
    const rows = Object.entries(fields).map(([key, value]) => ({
      type: 1,
      components: [{ type: 4, custom_id: key, value }],
    }));
    return this.interact(5, channelId, user, { custom_id: customId, components: rows });
  }

  private interact(
    type: number,
    channelId: string,
    user: FakeUser,
    data: Record<string, unknown>,
    message?: unknown,
  ): FakeInteraction {
    const channel = this.channels.get(channelId);
    const interaction: FakeInteraction = {
      id: this.snowflake(),
      token: `itok-${this.counter}`,
      callbacks: [],
      ephemeral: false,
      createdAt: Date.now(),
    };
    this.interactions.set(interaction.id, interaction);
    // In a DM (a type 1 channel) Discord sends the user instead of a guild member, and no guild.
    const guild = this.guildOf(channelId);
    const where =
      channel?.type === 1
        ? { user, authorizing_integration_owners: { 0: guild }, context: 1 }
        : {
            guild_id: guild,
            guild_locale: 'en-US',
            authorizing_integration_owners: { 0: guild },
            context: 0,
            member: {
              user,
              roles: this.memberRoles.get(user.id) ?? [],
              permissions: '1071698660929',
              joined_at: new Date().toISOString(),
              deaf: false,
              mute: false,
              flags: 0,
            },
          };
    this.dispatch('INTERACTION_CREATE', {
      id: interaction.id,
      application_id: this.applicationId,
      type,
      token: interaction.token,
      version: 1,
      channel_id: channelId,
      channel: channel ? this.channelPayload(channel) : { id: channelId, type: 0 },
      app_permissions: '1071698660929',
      locale: 'en-US',
      entitlements: [],
      attachment_size_limit: 10485760,
      data,
      ...where,
      ...(message === undefined ? {} : { message }),
    });
    return interaction;
  }
}

/** Discord numbers a message's components (1, 2, … depth first) when the sender gave them no `id`, and returns them so. */
function withComponentIds(components: Record<string, unknown>[]): Record<string, unknown>[] {
  let next = 0;
  const number = (component: Record<string, unknown>): Record<string, unknown> => {
    next += 1;
    const children = Array.isArray(component.components)
      ? { components: (component.components as Record<string, unknown>[]).map(number) }
      : {};
    return { ...component, id: component.id ?? next, ...children };
  };
  return components.map(number);
}
