/** The ChannelAdapter contract run against Discord: discord.js against the fake Discord (REST + gateway). */
import {
  channelAdapterContract,
  CONTRACT_MODELS,
  type ContractDriver,
  type SeenClick,
} from '../contracts/channel-adapter/index.js';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';

const REACTIONS: Record<string, string> = { '⏳': 'queued', '🚫': 'refused' };

const COMMAND_OPTION: Record<string, string> = { model: 'alias' };

async function startDiscordDriver(flags: Record<string, unknown>): Promise<ContractDriver<FakeUser>> {
  const h = await DiscordHarness.start({ editIntervalMs: 50, flags, models: CONTRACT_MODELS });
  const state = h.fake.state;
  const buttons = (components: unknown[]): string[] =>
    (components as { components?: { label?: string }[] }[]).flatMap((row) =>
      (row.components ?? []).map((component) => component.label ?? ''),
    );
  const stopMessage = (threadId: string) =>
    h.botMessages(threadId).find((message) => h.button(message, 'Stop') !== undefined);
  return {
    llm: h.llm,
    adapter: () => h.channel,
    traits: new Set(['others', 'queue-by-message', 'replies', 'stop-button', 'rate-limits']),
    linkedUser: async (id, name) => (await h.linkedUser(id, name)).user,
    mention: async (user, text) => (await h.mention(user, text)).threadId,
    say: (user, threadId, text) => state.injectMessage(threadId, user, text).id,
    sayWithFiles: (user, threadId, text, files) => h.fake.injectWithFiles(threadId, user, text, files).id,
    workspaceFile: (threadId, relative) => h.workspaceFile(threadId, relative),
    fileRequests: () => h.fake.files.requests,
    texts: (threadId) => h.textMessages(threadId).map((message) => message.content),
    edits: (threadId) => h.botMessages(threadId).reduce((sum, message) => sum + message.edits, 0),
    cards: (threadId) =>
      h.cards(threadId).map((card) => ({ text: JSON.stringify(card.embeds), buttons: buttons(card.components) })),
    click: (threadId, index, label, user): SeenClick => {
      const card = h.cards(threadId)[index];
      if (!card) throw new Error('no such card');
      const interaction = state.clickButton(card.id, h.button(card, label) ?? '', user);
      const seen = () => state.interactions.get(interaction.id);
      let submitted: string | undefined;
      return {
        reply: () => seen()?.reply ?? (submitted ? state.interactions.get(submitted)?.reply : undefined),
        formOpened: () => seen()?.modal !== undefined,
        submitFeedback: (text) => {
          submitted = state.submitModal(String(seen()?.modal?.custom_id), threadId, user, { feedback: text }).id;
        },
      };
    },
    reactions: (messageId) =>
      (state.messages.get(messageId)?.reactions ?? []).map((raw) => REACTIONS[decodeURIComponent(raw)] ?? raw),
    directPlace: (user) => state.openDm(user.id).id,
    sayDirect: (user, text) => state.injectMessage(state.openDm(user.id).id, user, text).id,
    closeDirect: async (user) => {
      const interaction = state.slashCommand('close', state.openDm(user.id).id, user);
      return h.fake.until(() => state.interactions.get(interaction.id)?.reply, 'close reply', 15_000);
    },
    workstreamOf: (threadId) => h.workstreamOf(threadId),
    notify: async (target, text, wsId) => {
      const to = target === 'channel' ? { channel_type: 'discord', channel_id: CHANNEL_ID } : target;
      return (await h.notify(to, text, wsId))[0] ?? '';
    },
    reply: (user, messageId, text) => {
      const message = state.messages.get(messageId);
      if (!message) throw new Error('no such message');
      state.injectMessage(message.channel_id, user, text, false, messageId);
      return message.channel_id;
    },
    textIds: (place) => h.textMessages(place).map((message) => message.id),
    turnsEnded: () => h.turnsEnded(),
    setClockOffset: (ms) => {
      h.clockOffsetMs = ms;
    },
    restart: async () => {
      await h.crash();
      await h.boot();
    },
    rateLimitEdits: (times) => {
      const before = h.fake.rateLimited;
      h.fake.rateLimit('PATCH', /^\/channels\/\d+\/messages\/\d+$/, times, 0.3);
      return () => h.fake.rateLimited - before;
    },
    command: async (user, threadId, name, arg) => {
      const option = COMMAND_OPTION[name];
      const interaction = state.slashCommand(
        name,
        threadId,
        user,
        arg !== undefined && option ? { [option]: arg } : {},
      );
      return h.fake.until(() => state.interactions.get(interaction.id)?.reply, `/${name} reply`, 15_000);
    },
    hasStop: (threadId) => stopMessage(threadId) !== undefined,
    clickStop: (threadId, user): SeenClick => {
      const message = stopMessage(threadId);
      if (!message) throw new Error('no Stop button');
      const interaction = state.clickButton(message.id, h.button(message, 'Stop') ?? '', user);
      return {
        reply: () => state.interactions.get(interaction.id)?.reply,
        formOpened: () => false,
        submitFeedback: () => undefined,
      };
    },
    notices: (user) =>
      h
        .botMessages(CHANNEL_ID)
        .concat(
          [...state.channels.values()].flatMap((channel) =>
            channel.parent_id === CHANNEL_ID ? h.botMessages(channel.id) : [],
          ),
        )
        .filter(
          (message) => message.replyTo !== undefined && state.messages.get(message.replyTo)?.author.id === user.id,
        )
        .map((message) => message.content),
    protocolProblems: () =>
      h.fake.invalidBodies.map((problem) => `${problem.method} ${problem.path}: ${problem.errors.join('; ')}`),
    waitFor: (probe, what, timeoutMs = 20_000) => h.fake.until(probe, what, timeoutMs) as never,
    close: () => h.close(),
  };
}

channelAdapterContract('discord', startDiscordDriver);
