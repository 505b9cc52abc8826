/**
 * The hands a platform gives the channel-adapter contract (`ContractDriver`), the gateway flags the contract runs
 * with, and what each case needs of an adapter (`Need`): a case whose need the adapter lacks is skipped by name.
 */
import type { TestContext } from 'node:test';
import sharp from 'sharp';
import type { ChannelAdapter } from '../../../src/channels/channel-adapter.js';
import type { FakeFile, FileRequest } from '../../fakes/fake-file-host.js';
import type { FakeLlmServer } from '../../fakes/fake-llm-server.js';

/** A card as a person sees it: its text (embed or blocks, serialised) and its button labels. */
export interface SeenCard {
  text: string;
  buttons: string[];
}

/** One click: what the clicking person saw privately, and whether a feedback form opened for them. */
export interface SeenClick {
  reply(): string | undefined;
  formOpened(): boolean;
  /** Fills in and submits the feedback form this click opened. */
  submitFeedback(text: string): void;
}

/**
 * What a platform offers that the port's capability objects do not say: `others` (more than one person writes to the
 * bot, so a stranger can click), `queue-by-message` (a message written while a card waits is a message, not the
 * card's answer), `replies` (a person replies to a given bot message: notification replies), `stop-button` (a Stop
 * control on the live message), `rate-limits` (the platform can answer a post or edit with "slow down").
 */
export type Trait = 'others' | 'queue-by-message' | 'replies' | 'stop-button' | 'rate-limits';

/** Platform-neutral hands on one platform's fake; `U` is the fake's user type. */
export interface ContractDriver<U = unknown> {
  readonly llm: FakeLlmServer;
  /** The adapter the gateway runs now (a new one after `restart`); its capabilities decide which cases run. */
  adapter(): ChannelAdapter;
  /** What the platform offers beyond the port's capability objects. */
  readonly traits: ReadonlySet<Trait>;
  /** Users linked to new Sandpiper users. */
  linkedUser(id: string, name: string): Promise<U>;
  /** The user mentions the bot in the allowed channel; resolves with the thread the bot answers in. */
  mention(user: U, text: string): Promise<string>;
  /** The user writes in a thread; returns the platform message id. */
  say(user: U, threadId: string, text: string): string;
  /** The user writes in a thread with files attached (served by the platform fake); returns the platform message id. */
  sayWithFiles(user: U, threadId: string, text: string, files: readonly FakeFile[]): string;
  /** A file in the workspace folder of the thread's workstream; undefined when it is not there. */
  workspaceFile(threadId: string, relative: string): Promise<Buffer | undefined>;
  /** Requests the platform fake's file host received (path and Authorization header). */
  fileRequests(): readonly FileRequest[];
  /** The bot's plain-text messages in a thread, oldest first, as currently shown. */
  texts(threadId: string): string[];
  /** How many times the bot's messages in a thread were edited. */
  edits(threadId: string): number;
  cards(threadId: string): SeenCard[];
  click(threadId: string, cardIndex: number, label: string, user: U): SeenClick;
  /** Reactions the bot put on a message, by meaning (`queued`, `refused`), mapped back from the platform's emoji. */
  reactions(messageId: string): string[];
  /** The user's DM with the bot, as a place for `texts`, `cards` and `click`. */
  directPlace(user: U): string;
  /** The user writes at the top level of their DM; returns the message id. */
  sayDirect(user: U, text: string): string;
  /** The user runs the close command in their DM; resolves with the private answer. */
  closeDirect(user: U): Promise<string>;
  /** The workstream a thread opened by `mention` is routed to. */
  workstreamOf(threadId: string): Promise<string>;
  /**
   * The notify endpoint posts `text` for workstream `wsId`: to a linked user by username (their DM) or, for
   * `channel`, into the test channel. Resolves with the posted message id.
   */
  notify(target: { username: string } | 'channel', text: string, wsId: string): Promise<string>;
  /** The user replies to a bot message (Discord: a message reply; Slack: in its thread); returns where the answer shows. */
  reply(user: U, messageId: string, text: string): string;
  /** Ids of the bot's plain-text messages in a place, in the order of `texts`. */
  textIds(place: string): string[];
  /** Resolves once no turn runs: what a person who writes a day after an answer can count on (before `setClockOffset`). */
  turnsEnded(): Promise<void>;
  /** Moves the gateway's clock forward by `ms` (0 puts it back). */
  setClockOffset(ms: number): void;
  /** Stops gateway and agent as a crash would, and starts them again on the same database and fakes. */
  restart(): Promise<void>;
  /** The platform answers the next `times` message posts (or edits) with a rate limit; returns how often it did. */
  rateLimitEdits(times: number): () => number;
  /** Requests the fake refused because they break the platform's published API description (none expected). */
  protocolProblems(): string[];
  /**
   * The user runs a thread command the way the platform offers it (Discord: the slash command in the thread; Slack:
   * the slash command, which acts on the user's latest thread); resolves with the private answer.
   */
  command(user: U, threadId: string, name: 'model' | 'status' | 'cancel', arg?: string): Promise<string>;
  /** Whether one of the bot's messages in the thread shows the Stop button. */
  hasStop(threadId: string): boolean;
  /** The user clicks the Stop button in the thread. */
  clickStop(threadId: string, user: U): SeenClick;
  /** Private notices the user got about messages they wrote (Slack: ephemeral; Discord: replies to their messages). */
  notices(user: U): string[];
  /**
   * Resolves with `probe`'s first truthy value, checked now and again after each change the platform fake announces
   * (no polling); rejects naming `what` after `timeoutMs`.
   */
  waitFor<T>(probe: () => T | undefined | false | null, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** What a case needs: a capability of the port (`src/channels/channel-adapter.ts`) or a platform trait. */
export type Need =
  Trait | 'edits' | 'threads' | 'chunking' | 'forms' | 'attachments' | 'direct' | 'ephemeral' | 'answer-posts';

/** The longest message length at which the contract's long answer (about 8,000 characters) must be split. */
const CHUNKED_BELOW = 8_000;

/** Whether the driver's adapter (or the platform) offers `need`. */
export function offers(driver: ContractDriver, need: Need): boolean {
  const adapter = driver.adapter();
  switch (need) {
    case 'edits':
      return adapter.capabilities.canEdit;
    case 'threads':
      return adapter.capabilities.canThread;
    case 'chunking':
      return adapter.capabilities.maxMessageLength < CHUNKED_BELOW;
    case 'answer-posts':
      return adapter.capabilities.answerPosts === true;
    case 'forms':
    case 'attachments':
    case 'direct':
    case 'ephemeral':
      return adapter.features[need] !== undefined;
    default:
      return driver.traits.has(need);
  }
}

/**
 * Skips the running case, by name, when the adapter lacks one of `needs`; true when skipped (the case returns).
 * A skipped case shows in the report as `# SKIP <platform> has no <need>`, never as a pass.
 */
export function lacks(t: TestContext, driver: ContractDriver, ...needs: Need[]): boolean {
  const missing = needs.filter((need) => !offers(driver, need));
  if (missing.length === 0) return false;
  t.skip(`${driver.adapter().platform} has no ${missing.join(', ')}`);
  return true;
}

/**
 * Flags of the main contract gateway: a small queue bound (so the refusal is reachable), a vision model and a 1 MB
 * attachment limit (so an oversize file is cheap to make). The harness's per-user rate is high enough for the whole
 * suite; the limits have their own gateway, with the defaults.
 */
export const CONTRACT_FLAGS = {
  'agent.max_queued_messages': 1,
  'models.fake.supports_vision': true,
  'gateway.max_attachment_mb': 1,
};
/** The inbound-limits gateway: the default rate (10 per 60 s; the harness raises it for other scenarios), a short length cap. */
export const LIMIT_FLAGS = {
  'gateway.max_message_chars': 500,
  'gateway.user_rate_limit': 10,
  'gateway.user_rate_window_s': 60,
};
/** A second model alias every driver configures next to `fake` (model `fake-model`), on the same fake LLM. */
export const CONTRACT_MODELS = { other: 'other-model' };

/** Boots a driver whose gateway has `flags` and the models `fake` and CONTRACT_MODELS. */
export type StartDriver<U> = (flags: Record<string, unknown>) => Promise<ContractDriver<U>>;

/** The main suite's driver and people, set in its `before`; the case files read them when their cases run. */
export interface ContractContext<U> {
  d: ContractDriver<U>;
  owner: U;
  stranger: U;
}

/** A solid PNG of the given size (too large for the models when over 1568 px). */
export function pngOf(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#c0392b' } })
    .png()
    .toBuffer();
}

export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

/** A model turn that calls `bash` with `command` (it needs an approval). */
export const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

/** The model a request body asked for. */
export function modelOf(body: unknown): unknown {
  return (body as { model?: unknown } | undefined)?.model;
}

/** Platform user ids of the contract's people (Slack `U…`, others numeric). */
export function personId(platform: string, slack: string, numeric: string): string {
  return platform === 'slack' ? slack : numeric;
}
