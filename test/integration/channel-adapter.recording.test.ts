/**
 * The ChannelAdapter contract run against the recording adapter (test/fakes/recording-adapter.ts), the platform of the
 * fast gateway tests: it must behave as the real platforms do, or the fast tests prove nothing.
 */
import { randomUUID } from 'node:crypto';
import type { NoticeCode, OutboundMessage, PlatformUser } from '../../src/channels/channel-adapter.js';
import {
  channelAdapterContract,
  CONTRACT_MODELS,
  type ContractDriver,
  type SeenClick,
} from '../contracts/channel-adapter/index.js';
import type { Seen, Shown } from '../fakes/recording-adapter.js';
import { RECORDING_CHANNEL, RECORDING_PLATFORM, RecordingHarness } from '../fakes/recording-harness.js';

/** The recording platform's words for the notices (the gateway asks by code; each platform words them). */
const NOTICE_WORDS: Record<NoticeCode, string> = {
  'link-hint': 'Link your account first.',
  'dm-unsupported': 'Direct messages are turned off here.',
  'notification-inactive': 'That notification is no longer active.',
  closed: 'Conversation closed.',
  reactivated: 'Conversation reactivated.',
  cancelled: 'Cancelled.',
  cleared: 'Cleared.',
  'approval-card-failed': 'The approval card could not be shown.',
  'attachments-skipped': 'Some attachments were not used:',
};
const ACTIONS: Record<string, 'approve' | 'always' | 'reject'> = {
  Approve: 'approve',
  Always: 'always',
  Reject: 'reject',
};

/** What a person reads of a plain message: its text, or a notice in the platform's words; undefined for cards and tool lines. */
function plainText(message: OutboundMessage): string | undefined {
  if (message.kind === 'text') return message.text;
  if (message.kind !== 'notice') return undefined;
  const words = NOTICE_WORDS[message.code];
  if (message.code === 'attachments-skipped') return `${words}\n${message.text ?? ''}`;
  return message.text ?? words;
}

function kindOf(place: string): 'direct' | 'channel' | 'thread' {
  if (place.startsWith('dm-')) return 'direct';
  return place === RECORDING_CHANNEL ? 'channel' : 'thread';
}

const emptySeen = (): Seen => ({ replies: [], forms: [], feedbackOpened: 0 });

async function startRecordingDriver(flags: Record<string, unknown>): Promise<ContractDriver<PlatformUser>> {
  const h = await RecordingHarness.start({ editIntervalMs: 50, flags, models: CONTRACT_MODELS });
  const adapter = h.fake.adapter;
  const problems: string[] = [];
  let sequence = 0;
  /** Hands an event to the gateway as the platform would; a handler failure is a problem the contract reports. */
  const deliver = (event: Parameters<typeof adapter.deliver>[0], options: Parameters<typeof adapter.deliver>[1] = {}) =>
    adapter.deliver(event, options).catch((error: unknown) => {
      problems.push(`${event.type}: ${String(error)}`);
      return emptySeen();
    });
  const message = (user: PlatformUser, place: string, text: string, extra: Record<string, unknown> = {}): string => {
    const messageId = `u${++sequence}`;
    const conversation = { kind: kindOf(place), channelId: place };
    void deliver({ type: 'message', user, conversation, messageId, text, mentioned: false, ...extra });
    return messageId;
  };
  const shownIn = (place: string): Shown[] =>
    adapter.shown.filter((shown) => shown.channelId === place && !adapter.deleted.has(shown.id));
  const textsIn = (place: string): Array<{ id: string; text: string }> =>
    shownIn(place).flatMap((shown) => {
      const text = plainText(shown.message);
      return text === undefined ? [] : [{ id: shown.id, text }];
    });
  const cardsIn = (place: string) =>
    shownIn(place).flatMap((shown) => (shown.message.kind === 'approval' ? [shown.message.card] : []));
  const liveIn = (place: string): Shown | undefined =>
    shownIn(place).find((shown) => shown.message.kind === 'text' && shown.message.stoppable === true);
  const reply = (seen: Seen) => (): string | undefined => seen.replies[0];
  const command = async (
    user: PlatformUser,
    place: string,
    name: 'model' | 'status' | 'cancel' | 'close',
    arg?: string,
  ) => {
    const args = name === 'model' && arg !== undefined ? { model: arg } : {};
    const conversation = { kind: kindOf(place), channelId: place };
    const seen = await deliver({ type: 'command', name, user, conversation, args, eventId: randomUUID() });
    return adapter.until(() => seen.replies[0], `the /${name} reply`);
  };
  return {
    llm: h.llm,
    adapter: () => h.channel,
    traits: new Set(['others', 'queue-by-message', 'replies', 'stop-button', 'rate-limits']),
    linkedUser: async (id, name) => (await h.linkedUser(id, name)).user,
    mention: async (user, text) => {
      const id = message(user, RECORDING_CHANNEL, text, { mentioned: true });
      return adapter.until(
        () => adapter.threads.find((thread) => thread.origin.fromMessageId === id)?.id,
        'the thread',
      );
    },
    say: (user, threadId, text) => message(user, threadId, text),
    sayWithFiles: (user, threadId, text, files) => {
      const attachments = files.map((file, index) => ({
        name: file.name,
        url: file.url ?? h.fake.files.put(`/files/${++sequence}/${index}/${encodeURIComponent(file.name)}`, file),
        size: file.declaredSize ?? file.bytes.length,
        contentType: file.contentType,
      }));
      return message(user, threadId, text, { attachments });
    },
    workspaceFile: (threadId, relative) => h.workspaceFile(threadId, relative),
    fileRequests: () => h.fake.files.store.requests,
    texts: (place) => textsIn(place).map((entry) => entry.text),
    textIds: (place) => textsIn(place).map((entry) => entry.id),
    edits: (place) => shownIn(place).reduce((sum, shown) => sum + shown.edits, 0),
    cards: (place) =>
      cardsIn(place).map((card) => {
        const outcome = card.outcome;
        const decided =
          outcome.status === 'pending'
            ? 'Approval required'
            : `${outcome.status[0]?.toUpperCase()}${outcome.status.slice(1)} by ${outcome.decidedBy}`;
        return {
          text: `${decided}: ${JSON.stringify(card.items)}`,
          buttons: outcome.status === 'pending' ? ['Approve', 'Always', 'Reject'] : [],
        };
      }),
    click: (place, index, label, user): SeenClick => {
      const card = cardsIn(place)[index];
      const name = ACTIONS[label];
      if (!card || !name) throw new Error(`no card ${index} with ${label} in ${place}`);
      const seen = emptySeen();
      const action = { type: 'action', name, approvalId: card.approvalId, user } as const;
      void deliver({ ...action, feedback: null, eventId: randomUUID() }, { feedbackForm: name === 'reject', seen });
      return {
        reply: reply(seen),
        formOpened: () => seen.feedbackOpened > 0,
        submitFeedback: (text) => void deliver({ ...action, feedback: text, eventId: randomUUID() }, { seen }),
      };
    },
    reactions: (messageId) =>
      adapter.reactions.filter((reaction) => reaction.messageId === messageId).map((reaction) => reaction.reaction),
    directPlace: (user) => `dm-${user.id}`,
    sayDirect: (user, text) => message(user, `dm-${user.id}`, text),
    closeDirect: (user) => command(user, `dm-${user.id}`, 'close'),
    workstreamOf: (threadId) => h.workstreamOf(threadId),
    notify: async (target, text, wsId) => {
      const to = target === 'channel' ? { channel_type: RECORDING_PLATFORM, channel_id: RECORDING_CHANNEL } : target;
      return (await h.notify(to, text, wsId))[0] ?? '';
    },
    reply: (user, messageId, text) => {
      const shown = adapter.shown.find((candidate) => candidate.id === messageId);
      if (!shown) throw new Error(`no message ${messageId}`);
      message(user, shown.channelId, text, { replyTo: messageId });
      return shown.channelId;
    },
    turnsEnded: () => h.turnsEnded(),
    setClockOffset: (ms) => {
      h.clockOffsetMs = ms;
    },
    restart: async () => {
      await h.crash();
      await h.boot();
    },
    rateLimitEdits: (times) => {
      const before = adapter.rateLimited;
      adapter.rateLimitEdits = times;
      return () => adapter.rateLimited - before;
    },
    protocolProblems: () => [...problems, ...adapter.failures.map(String)],
    command: (user, threadId, name, arg) => command(user, threadId, name, arg),
    hasStop: (threadId) => liveIn(threadId) !== undefined,
    clickStop: (threadId, user): SeenClick => {
      const live = liveIn(threadId);
      if (!live) throw new Error('no Stop button');
      const seen = emptySeen();
      const removeControl = (): Promise<void> => {
        if (live.message.kind === 'text') live.message = { ...live.message, stoppable: false };
        return Promise.resolve();
      };
      const conversation = { kind: kindOf(threadId), channelId: threadId };
      void deliver(
        { type: 'command', name: 'cancel', user, conversation, args: {}, eventId: randomUUID(), removeControl },
        { seen },
      );
      return { reply: reply(seen), formOpened: () => false, submitFeedback: () => undefined };
    },
    notices: (user) => adapter.whispers.filter((whisper) => whisper.userId === user.id).map((whisper) => whisper.text),
    waitFor: (probe, what, timeoutMs = 20_000) => adapter.until(probe, what, timeoutMs),
    close: () => h.close(),
  };
}

channelAdapterContract(RECORDING_PLATFORM, startRecordingDriver);
