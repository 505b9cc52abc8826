/** The ChannelAdapter contract run against Slack: bolt in Socket Mode against the fake Slack (Web API + socket). */
import { channelAdapterContract, CONTRACT_MODELS, type ContractDriver, type SeenClick } from '../contracts/channel-adapter.contract.js';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';

const REACTIONS: Record<string, string> = { hourglass_flowing_sand: 'queued', no_entry_sign: 'refused' };

async function startSlackDriver(flags: Record<string, unknown>): Promise<ContractDriver<FakeSlackUser>> {
  const h = await SlackHarness.start({ editIntervalMs: 50, flags, models: CONTRACT_MODELS });
  const state = h.fake.state;
  const buttons = (message: Parameters<typeof state.buttons>[0]): string[] => state.buttons(message).map((button) => button.text?.text ?? '');
  const threadOf = (threadId: string): string => threadId.split(':').at(-1) ?? threadId;
  const stopMessage = (threadId: string) => h.botReplies(threadOf(threadId)).find((message) => h.button(message, 'Stop') !== undefined);
  const answerTo = async (user: FakeSlackUser, send: () => void, what: string): Promise<string> => {
    const before = state.privateTo(user.id).length;
    send();
    return h.fake.waitFor(() => state.privateTo(user.id)[before], 15_000, what);
  };
  return {
    llm: h.llm,
    linkedUser: async (id, name) => (await h.linkedUser(id, name)).user,
    mention: (user, text) => Promise.resolve(h.mention(user, text).threadTs),
    say: (user, threadId, text) => h.fake.userMessage(user, CHANNEL, text, threadOf(threadId)).message.ts,
    sayWithFiles: (user, threadId, text, files) => h.fake.userMessageWithFiles(user, CHANNEL, text, files, threadOf(threadId)).message.ts,
    workspaceFile: (threadId, relative) => h.workspaceFile(`${CHANNEL}:${threadOf(threadId)}`, relative),
    fileRequests: () => h.fake.files.requests,
    texts: (threadId) => h.textReplies(threadOf(threadId)).map((message) => message.text),
    edits: (threadId) => h.botReplies(threadOf(threadId)).reduce((sum, message) => sum + message.history.length - 1, 0),
    cards: (threadId) => h.cards(threadOf(threadId)).map((card) => ({ text: JSON.stringify(card.blocks), buttons: buttons(card) })),
    click: (threadId, index, label, user): SeenClick => {
      const card = h.cards(threadOf(threadId))[index];
      if (!card) throw new Error('no such card');
      const before = state.privateTo(user.id).length;
      const click = h.fake.click(card, h.button(card, label) ?? '', user);
      return {
        reply: () => state.privateTo(user.id)[before],
        formOpened: () => state.views.some((view) => view.triggerId === click.triggerId),
        submitFeedback: (text) => void h.fake.submitView(click.triggerId, user, { feedback: text }),
      };
    },
    reactions: (messageId) => state.messages.find((message) => message.ts === messageId)?.reactions.map((name) => REACTIONS[name] ?? name) ?? [],
    direct: async (user, text) => {
      const channel = `D0${user.id.slice(2)}`;
      h.fake.userMessage(user, channel, text);
      const answers = () => state.messages.filter((message) => message.channel === channel && message.user === BOT_USER_ID);
      await h.fake.waitFor(() => answers()[0], 15_000, 'DM answer');
      return answers().map((message) => message.text);
    },
    rateLimitEdits: (times) => {
      const limited = (): number => h.fake.callsOf('chat.update').filter((call) => call.status === 429).length;
      const before = limited();
      h.fake.rateLimit('chat.update', times, 1);
      return () => limited() - before;
    },
    command: (user, _threadId, name, arg) =>
      answerTo(user, () => void h.fake.slashCommand(user, CHANNEL, arg === undefined ? name : `${name} ${arg}`), `/sandpiper ${name} reply`),
    hasStop: (threadId) => stopMessage(threadId) !== undefined,
    clickStop: (threadId, user): SeenClick => {
      const message = stopMessage(threadId);
      if (!message) throw new Error('no Stop button');
      const before = state.privateTo(user.id).length;
      h.fake.click(message, h.button(message, 'Stop') ?? '', user);
      return { reply: () => state.privateTo(user.id)[before], formOpened: () => false, submitFeedback: () => undefined };
    },
    notices: (user) => state.ephemerals.filter((entry) => entry.user === user.id && entry.via.startsWith('ephemeral:')).map((entry) => entry.text),
    // The fake Slack checks each method's required arguments itself; there is no vendored Web API description.
    protocolProblems: () => [],
    waitFor: (probe, what, timeoutMs = 20_000) => h.fake.waitFor(probe, timeoutMs, what) as never,
    close: () => h.close(),
  };
}

channelAdapterContract('slack', startSlackDriver);
