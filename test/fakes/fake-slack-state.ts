/** The fake Slack's workspace state: messages, reactions, opened modals, private answers, and payload builders. */
import { randomUUID } from 'node:crypto';

export const TEAM_ID = 'T0001';
export const APP_ID = 'A0001';
export const BOT_USER_ID = 'U0BOT';
export const BOT_ID = 'B0001';

/** A workspace and the app's bot in it; `tokens` are its bot tokens (a token of another workspace is refused). */
export interface FakeTeam {
  id: string;
  name: string;
  botUserId: string;
  botId: string;
  tokens: Set<string>;
}

export interface FakeSlackUser {
  id: string;
  name: string;
}

export interface FakeSlackMessage {
  channel: string;
  ts: string;
  threadTs: string | undefined;
  user: string;
  /** Set on messages the bot posted. */
  botId: string | undefined;
  text: string;
  blocks: Record<string, unknown>[];
  /** Every text the message showed, oldest first (post, then each update). */
  history: string[];
  reactions: string[];
  /** Message metadata (`chat.postMessage` / `chat.update` / `chat.stopStream` `metadata`), when the app set some. */
  metadata?: { event_type: string; event_payload: Record<string, unknown> } | undefined;
}

export interface FakeView {
  id: string;
  triggerId: string;
  view: Record<string, unknown>;
}

export interface FakeEphemeral {
  /** `response_url` key or `ephemeral:<channel>:<user>` for chat.postEphemeral. */
  via: string;
  user: string;
  text: string;
  /** The thread an ephemeral message was shown in (chat.postEphemeral `thread_ts`). */
  threadTs?: string | undefined;
}

export class FakeSlackState {
  readonly messages: FakeSlackMessage[] = [];
  readonly views: FakeView[] = [];
  readonly ephemerals: FakeEphemeral[] = [];
  /** User group id → member user ids (`usergroups.users.list`). */
  readonly userGroups = new Map<string, string[]>();
  /** response_url key → the user it answers. */
  readonly responseUrls = new Map<string, string>();
  readonly triggers = new Map<string, { used: boolean }>();
  /** Workspaces by id: the first one's bot token is the fake's `botToken`; installs add tokens (`fake-slack-oauth.ts`). */
  readonly teams = new Map<string, FakeTeam>([
    [TEAM_ID, { id: TEAM_ID, name: 'fake', botUserId: BOT_USER_ID, botId: BOT_ID, tokens: new Set() }],
  ]);
  /** Channel id → its workspace (absent: the first workspace). */
  readonly channelTeams = new Map<string, string>();
  private clock = 0;
  /** conversations.history / replies calls answered. */
  historyReads = 0;

  constructor(private readonly baseUrl: () => string) {}

  /** Seconds part of the first timestamp: the fake's start time, so timestamps fall inside catch-up windows. */
  private readonly epoch = Math.floor(Date.now() / 1000);

  /** Adds a workspace whose bot is `botUserId`; `channels` are in it. */
  addTeam(id: string, name: string, botUserId: string, botId: string, channels: readonly string[] = []): FakeTeam {
    const team: FakeTeam = { id, name, botUserId, botId, tokens: new Set() };
    this.teams.set(id, team);
    for (const channel of channels) this.channelTeams.set(channel, id);
    return team;
  }

  teamOfChannel(channel: string): FakeTeam {
    const team = this.teams.get(this.channelTeams.get(channel) ?? TEAM_ID) ?? this.teams.get(TEAM_ID);
    if (!team) throw new Error('fake slack: no workspace');
    return team;
  }

  teamOfToken(token: string): FakeTeam | undefined {
    return [...this.teams.values()].find((team) => team.tokens.has(token));
  }

  nextTs(): string {
    this.clock += 1;
    return `${this.epoch + Math.floor(this.clock / 1_000_000)}.${String(this.clock % 1_000_000).padStart(6, '0')}`;
  }

  find(channel: string, ts: string): FakeSlackMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  /** Messages of a thread (replies only, oldest first). */
  thread(channel: string, threadTs: string): FakeSlackMessage[] {
    return this.messages.filter((m) => m.channel === channel && m.threadTs === threadTs);
  }

  /** Top-level messages of a channel. */
  topLevel(channel: string): FakeSlackMessage[] {
    return this.messages.filter((m) => m.channel === channel && m.threadTs === undefined);
  }

  addMessage(fields: {
    channel: string;
    user: string;
    text: string;
    threadTs?: string | undefined;
    botId?: string;
    blocks?: Record<string, unknown>[];
  }): FakeSlackMessage {
    const message: FakeSlackMessage = {
      channel: fields.channel,
      ts: this.nextTs(),
      threadTs: fields.threadTs,
      user: fields.user,
      botId: fields.botId,
      text: fields.text,
      blocks: fields.blocks ?? [],
      history: [fields.text],
      reactions: [],
    };
    this.messages.push(message);
    return message;
  }

  /** Private answers a user received (response_url posts and ephemeral messages), oldest first. */
  privateTo(userId: string): string[] {
    return this.ephemerals.filter((e) => e.user === userId).map((e) => e.text);
  }

  newResponseUrl(userId: string): string {
    const key = randomUUID();
    this.responseUrls.set(key, userId);
    return `${this.baseUrl()}/response_url/${key}`;
  }

  newTrigger(): string {
    const id = `trg.${randomUUID()}`;
    this.triggers.set(id, { used: false });
    return id;
  }

  /** The `events_api` payload for a user's message (and, when it mentions the bot, its `app_mention` twin). */
  messageEvents(
    message: FakeSlackMessage,
    channelType: 'channel' | 'im',
    extra: Record<string, unknown> = {},
  ): Record<string, unknown>[] {
    const event: Record<string, unknown> = {
      type: 'message',
      channel: message.channel,
      channel_type: channelType,
      user: message.user,
      text: message.text,
      ts: message.ts,
      event_ts: message.ts,
      ...extra,
    };
    if (message.threadTs) event.thread_ts = message.threadTs;
    const events = [event];
    const team = this.teamOfChannel(message.channel);
    if (message.text.includes(`<@${team.botUserId}>`)) {
      const mention: Record<string, unknown> = { ...event, type: 'app_mention' };
      delete mention.channel_type;
      delete mention.subtype;
      events.push(mention);
    }
    return events.map((inner) => ({
      token: 'verif',
      team_id: team.id,
      api_app_id: APP_ID,
      type: 'event_callback',
      event_id: `Ev${randomUUID().slice(0, 8)}`,
      event_time: 1700000000,
      authorizations: [
        { enterprise_id: null, team_id: team.id, user_id: team.botUserId, is_bot: true, is_enterprise_install: false },
      ],
      is_ext_shared_channel: false,
      event: inner,
    }));
  }

  commandPayload(command: string, text: string, channel: string, user: FakeSlackUser): Record<string, unknown> {
    return {
      token: 'verif',
      team_id: this.teamOfChannel(channel).id,
      team_domain: 'fake',
      channel_id: channel,
      channel_name: channel.startsWith('D') ? 'directmessage' : 'general',
      user_id: user.id,
      user_name: user.name,
      command,
      text,
      api_app_id: APP_ID,
      is_enterprise_install: 'false',
      response_url: this.newResponseUrl(user.id),
      trigger_id: this.newTrigger(),
    };
  }

  blockActionsPayload(
    message: FakeSlackMessage,
    actionId: string,
    user: FakeSlackUser,
    value?: string,
  ): Record<string, unknown> {
    const element = this.buttons(message).find((b) => b.action_id === actionId);
    const teamId = this.teamOfChannel(message.channel).id;
    return {
      type: 'block_actions',
      user: { id: user.id, username: user.name, name: user.name, team_id: teamId },
      api_app_id: APP_ID,
      token: 'verif',
      trigger_id: this.newTrigger(),
      team: { id: teamId, domain: 'fake' },
      enterprise: null,
      is_enterprise_install: false,
      container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
      channel: { id: message.channel, name: 'general' },
      message: { ts: message.ts, text: message.text, blocks: message.blocks },
      state: { values: {} },
      response_url: this.newResponseUrl(user.id),
      actions: [
        {
          type: 'button',
          action_id: actionId,
          block_id: 'b1',
          value: value ?? element?.value,
          action_ts: '1700000001.000001',
          text: element?.text,
        },
      ],
    };
  }

  /**
   * The view_submission payload for `view` filled with `values` by block id, shaped as Slack sends it: every input
   * block appears (an untouched text input has `value: null`), selects carry the chosen `selected_option`.
   */
  viewSubmissionPayload(view: FakeView, user: FakeSlackUser, values: Record<string, string>): Record<string, unknown> {
    const state: Record<string, Record<string, unknown>> = {};
    const blocks = Array.isArray(view.view.blocks) ? (view.view.blocks as Record<string, unknown>[]) : [];
    for (const block of blocks.filter((b) => b.type === 'input')) {
      const element = (block.element ?? {}) as { type?: string; action_id?: string; options?: { value?: string }[] };
      const blockId = String(block.block_id ?? '');
      const value = values[blockId];
      state[blockId] = { [String(element.action_id ?? blockId)]: elementState(element, value) };
    }
    for (const [id, value] of Object.entries(values)) state[id] ??= { [id]: { type: 'plain_text_input', value } };
    return {
      type: 'view_submission',
      team: { id: TEAM_ID, domain: 'fake' },
      user: { id: user.id, username: user.name, name: user.name, team_id: TEAM_ID },
      api_app_id: APP_ID,
      token: 'verif',
      trigger_id: this.newTrigger(),
      view: { ...view.view, id: view.id, team_id: TEAM_ID, state: { values: state }, hash: 'h', app_id: APP_ID },
      response_urls: [],
    };
  }

  /** The buttons of a message (from its actions blocks). */
  buttons(
    message: FakeSlackMessage,
  ): { action_id?: string; value?: string; text?: { text?: string }; style?: string }[] {
    return message.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => (b.elements as Record<string, unknown>[] | undefined) ?? []) as never;
  }
}

function elementState(
  element: { type?: string; options?: { value?: string }[] },
  value: string | undefined,
): Record<string, unknown> {
  if (element.type === 'static_select') {
    const option = element.options?.find((o) => o.value === value);
    return { type: 'static_select', selected_option: option ?? null };
  }
  return { type: element.type ?? 'plain_text_input', value: value === undefined || value === '' ? null : value };
}
