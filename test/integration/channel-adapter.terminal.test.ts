/**
 * The ChannelAdapter contract run against the terminal (`sandpiper chat`): the real terminal adapter, typed into
 * through its input stream and read from its output stream (test/fakes/terminal-screen.ts). The terminal has one
 * person, one conversation and no threads, replies or buttons: those cases are skipped by name.
 */
import { TERMINAL_CHANNEL, quoted } from '../../src/channels/terminal/terminal-adapter.js';
import type { PlatformUser } from '../../src/channels/channel-adapter.js';
import {
  channelAdapterContract,
  CONTRACT_MODELS,
  type ContractDriver,
  type SeenCard,
  type SeenClick,
} from '../contracts/channel-adapter/index.js';
import { TERMINAL_USER, TerminalHarness } from '../fakes/terminal-harness.js';

/** How the terminal asks about a pending approval card (`terminal-format.ts`). */
const APPROVAL_QUESTION = /^(Approve\?|Allow\?|Approve the plan\?) \[/;
const ANSWERS: Record<string, string> = { Approve: 'y', Always: 'a', Reject: 'n' };
const REACTIONS: Array<[RegExp, string]> = [
  [/^\(queued: /, 'queued'],
  [/^\(not sent: /, 'refused'],
];
/** A place is the line a conversation part starts at on the one screen: `@<line index>`. */
const at = (line: number): string => `@${line}`;
const lineOf = (place: string): number => Number(place.slice(1));

function unsupported(what: string): never {
  throw new Error(`the terminal has no ${what} (the contract skips cases that need it)`);
}

async function startTerminalDriver(flags: Record<string, unknown>): Promise<ContractDriver<PlatformUser>> {
  const h = await TerminalHarness.start({ editIntervalMs: 50, flags, models: CONTRACT_MODELS });
  const screen = h.fake;
  let linked = 0;
  /** Everything the bot printed after the person's line `line`, up to the next line the person typed. */
  const answerTo = (line: number): string[] => {
    const next = screen.lines.findIndex((entry, index) => index > line && entry.by === 'person');
    return screen.lines.slice(line + 1, next === -1 ? undefined : next).map((entry) => entry.text);
  };
  const privateAnswer = async (line: number, what: string): Promise<string> =>
    (await screen.until(() => answerTo(line).length > 0 && answerTo(line), what)).join('\n');
  /** Approval cards from `from` on: a question answered (a typed line) or still waiting (the screen's last line). */
  const cardsFrom = (from: number): Array<{ line: number; card: SeenCard }> => {
    const cards = screen.lines.flatMap((entry, index): Array<{ line: number; card: SeenCard }> => {
      if (index < from || entry.by !== 'person' || !APPROVAL_QUESTION.test(entry.text)) return [];
      const outcome = answerTo(index).find((text) =>
        /^\((approved|always|rejected|cancelled|interrupted) by /.test(text),
      );
      return [{ line: index, card: { text: `${entry.text}\n${outcome ?? ''}`, buttons: [] } }];
    });
    if (APPROVAL_QUESTION.test(screen.pending))
      cards.push({ line: -1, card: { text: screen.pending, buttons: ['Approve', 'Always', 'Reject'] } });
    return cards;
  };
  const command = (text: string, what: string): Promise<string> => privateAnswer(screen.type(text), what);
  return {
    llm: h.llm,
    adapter: () => h.channel,
    traits: new Set(),
    linkedUser: async (id, name) => (await h.linkedUser(linked++ === 0 ? TERMINAL_USER : id, name)).user,
    mention: (_user, text) => Promise.resolve(at(screen.type(text))),
    say: (_user, _place, text) => at(screen.type(text)),
    sayWithFiles: () => unsupported('attachments'),
    workspaceFile: (_place, relative) => h.workspaceFile(TERMINAL_CHANNEL, relative),
    fileRequests: () => [],
    texts: (place) => screen.botLines(lineOf(place)),
    textIds: () => unsupported('message ids'),
    edits: () => 0,
    cards: (place) => cardsFrom(lineOf(place)).map((entry) => entry.card),
    click: (place, index, label): SeenClick => {
      const card = cardsFrom(lineOf(place))[index];
      const answer = ANSWERS[label];
      if (card?.line !== -1 || answer === undefined) throw new Error(`no waiting card ${index} to ${label}`);
      const line = screen.type(answer);
      return {
        reply: () => answerTo(line).find((text) => !/^[⚙✓✗(]|^ {4}/.test(text)),
        formOpened: () => false,
        submitFeedback: () => unsupported('feedback form'),
      };
    },
    reactions: (messageId) => {
      const typed = screen.lines[lineOf(messageId)]?.text ?? '';
      return screen
        .botLines(lineOf(messageId))
        .filter((text) => text.endsWith(` “${quoted(typed)}”`))
        .flatMap((text) => REACTIONS.flatMap(([pattern, meaning]) => (pattern.test(text) ? [meaning] : [])));
    },
    directPlace: () => at(screen.lines.length),
    sayDirect: (_user, text) => at(screen.type(text)),
    closeDirect: () => command('/new', 'the /new answer'),
    workstreamOf: () => h.workstreamOf(TERMINAL_CHANNEL),
    notify: () => unsupported('notification replies'),
    reply: () => unsupported('replies to a message'),
    turnsEnded: () => h.turnsEnded(),
    setClockOffset: (ms) => {
      h.clockOffsetMs = ms;
    },
    restart: async () => {
      await h.crash();
      await h.boot();
    },
    rateLimitEdits: () => unsupported('rate limits'),
    protocolProblems: () => [],
    command: (_user, _place, name, arg) => command(arg === undefined ? `/${name}` : `/${name} ${arg}`, `/${name}`),
    hasStop: () => unsupported('Stop button'),
    clickStop: () => unsupported('Stop button'),
    notices: () => screen.botLines(),
    waitFor: (probe, what, timeoutMs = 20_000) => screen.until(probe, what, timeoutMs),
    close: () => h.close(),
  };
}

channelAdapterContract('terminal', startTerminalDriver);
