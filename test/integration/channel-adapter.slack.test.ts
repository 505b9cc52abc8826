/** The ChannelAdapter contract run against Slack: bolt in Socket Mode against the fake Slack (Web API + socket). */
import {
  channelAdapterContract,
  CONTRACT_MODELS,
  type ContractDriver,
  type SeenClick,
} from '../contracts/channel-adapter/index.js';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackMessage, type FakeSlackUser } from '../fakes/fake-slack.js';

const REACTIONS: Record<string, string> = { hourglass_flowing_sand: 'queued', no_entry_sign: 'refused' };

async function startSlackDriver(flags: Record<string, unknown>): Promise<ContractDriver<FakeSlackUser>> {
  const h = await SlackHarness.start({ editIntervalMs: 50, flags, models: CONTRACT_MODELS });
  const state = h.fake.state;
  const buttons = (message: Parameters<typeof state.buttons>[0]): string[] =>
    state.buttons(message).map((button) => button.text?.text ?? '');
  const threadOf = (threadId: string): string => threadId.split(':').at(-1) ?? threadId;
  const answerTo = async (user: FakeSlackUser, send: () => void, what: string): Promise<string> => {
    const before = state.privateTo(user.id).length;
    send();
    return h.fake.until(() => state.privateTo(user.id)[before], what, 15_000);
  };
  /** A place: a thread id from `mention` (its ts), `<channel>:<ts>` (a thread), or a DM channel id (its top level). */
  const placed = (place: string): FakeSlackMessage[] => {
    const [channel, ts] = place.includes(':')
      ? (place.split(':') as [string, string])
      : place.startsWith('D')
        ? [place, undefined]
        : [CHANNEL, place];
    const messages = ts === undefined ? state.topLevel(channel) : state.thread(channel, ts);
    return messages.filter((message) => message.user === BOT_USER_ID);
  };
  /** Plain-text bot messages: no blocks, or the live message of a running turn (its text and the Stop button). */
  const live = (message: FakeSlackMessage): boolean => message.blocks.some((block) => block.block_id === 'sp_stop');
  const textsIn = (place: string): FakeSlackMessage[] =>
    placed(place).filter((message) => (message.blocks.length === 0 || live(message)) && message.text.length > 0);
  const cardsIn = (place: string): FakeSlackMessage[] =>
    placed(place).filter((m) => /Tool Approval Required|Plan Review/.test(JSON.stringify(m.blocks)));
  const stopMessage = (place: string) => placed(place).find((message) => h.button(message, 'Stop') !== undefined);
  const dmOf = (user: FakeSlackUser): string => `D${user.id.slice(1, 10)}`;
  return {
    llm: h.llm,
    adapter: () => h.channel,
    traits: new Set(['others', 'queue-by-message', 'replies', 'stop-button', 'rate-limits']),
    linkedUser: async (id, name) => (await h.linkedUser(id, name)).user,
    mention: (user, text) => Promise.resolve(h.mention(user, text).threadTs),
    say: (user, threadId, text) => h.fake.userMessage(user, CHANNEL, text, threadOf(threadId)).message.ts,
    sayWithFiles: (user, threadId, text, files) =>
      h.fake.userMessageWithFiles(user, CHANNEL, text, files, threadOf(threadId)).message.ts,
    workspaceFile: (threadId, relative) => h.workspaceFile(`${CHANNEL}:${threadOf(threadId)}`, relative),
    fileRequests: () => h.fake.files.requests,
    texts: (place) => textsIn(place).map((message) => message.text),
    edits: (place) => placed(place).reduce((sum, message) => sum + message.history.length - 1, 0),
    cards: (place) => cardsIn(place).map((card) => ({ text: JSON.stringify(card.blocks), buttons: buttons(card) })),
    click: (place, index, label, user): SeenClick => {
      const card = cardsIn(place)[index];
      if (!card) throw new Error('no such card');
      const before = state.privateTo(user.id).length;
      const click = h.fake.click(card, h.button(card, label) ?? '', user);
      return {
        reply: () => state.privateTo(user.id)[before],
        formOpened: () => state.views.some((view) => view.triggerId === click.triggerId),
        submitFeedback: (text) => void h.fake.submitView(click.triggerId, user, { feedback: text }),
      };
    },
    reactions: (messageId) =>
      state.messages.find((message) => message.ts === messageId)?.reactions.map((name) => REACTIONS[name] ?? name) ??
      [],
    directPlace: dmOf,
    sayDirect: (user, text) => h.fake.userMessage(user, dmOf(user), text).message.ts,
    closeDirect: async (user) => {
      const before = state.privateTo(user.id).length;
      h.fake.slashCommand(user, dmOf(user), 'close');
      return h.fake.until(() => state.privateTo(user.id)[before], 'close reply', 15_000);
    },
    workstreamOf: (threadTs) => h.workstreamOf(`${CHANNEL}:${threadTs}`),
    notify: async (target, text, wsId) => {
      const to = target === 'channel' ? { channel_type: 'slack', channel_id: CHANNEL } : target;
      return (await h.notify(to, text, wsId))[0] ?? '';
    },
    reply: (user, messageId, text) => {
      const message = state.messages.find((candidate) => candidate.ts === messageId);
      if (!message) throw new Error('no such message');
      const root = message.threadTs ?? message.ts;
      h.fake.userMessage(user, message.channel, text, root);
      return `${message.channel}:${root}`;
    },
    textIds: (place) => textsIn(place).map((message) => message.ts),
    turnsEnded: () => h.turnsEnded(),
    setClockOffset: (ms) => {
      h.clockOffsetMs = ms;
    },
    restart: async () => {
      await h.crash();
      await h.boot();
    },
    rateLimitEdits: (times) => {
      const limited = (): number => h.fake.callsOf('chat.update').filter((call) => call.status === 429).length;
      const before = limited();
      h.fake.rateLimit('chat.update', times, 1);
      return () => limited() - before;
    },
    command: (user, _threadId, name, arg) =>
      answerTo(
        user,
        () => void h.fake.slashCommand(user, CHANNEL, arg === undefined ? name : `${name} ${arg}`),
        `/sandpiper ${name} reply`,
      ),
    hasStop: (threadId) => stopMessage(threadId) !== undefined,
    clickStop: (threadId, user): SeenClick => {
      const message = stopMessage(threadId);
      if (!message) throw new Error('no Stop button');
      const before = state.privateTo(user.id).length;
      h.fake.click(message, h.button(message, 'Stop') ?? '', user);
      return {
        reply: () => state.privateTo(user.id)[before],
        formOpened: () => false,
        submitFeedback: () => undefined,
      };
    },
    notices: (user) =>
      state.ephemerals
        .filter((entry) => entry.user === user.id && entry.via.startsWith('ephemeral:'))
        .map((entry) => entry.text),
    // The fake Slack checks each method's required arguments itself; there is no vendored Web API description.
    protocolProblems: () => [],
    waitFor: (probe, what, timeoutMs = 20_000) => h.fake.until(probe, what, timeoutMs) as never,
    close: () => h.close(),
  };
}

channelAdapterContract('slack', startSlackDriver);
