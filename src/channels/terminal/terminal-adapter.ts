/**
 * The terminal as a channel (`sandpiper chat`): typed lines become inbound events of one direct conversation, and what
 * the gateway shows is printed. Answers stream natively (appended as they come); an approval card or a form asks at the
 * prompt and the typed answer goes back as the click or submission a platform would send. Everything else (limits,
 * commands, the queue, approvals, plan review, forms) is the gateway's, as on Discord and Slack.
 */
import { randomUUID } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { AdapterBase } from '../adapter-base.js';
import type {
  ChannelAdapter,
  ChannelCapabilities,
  ChannelFeatures,
  CommandName,
  Conversation,
  FormSpec,
  InboundEvent,
  InboundHandler,
  NativeStream,
  OutboundMessage,
  PlatformUser,
  ReactionCode,
} from '../channel-adapter.js';
import { ChannelError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { CardPrompts } from './terminal-card-prompts.js';
import { renderEdit, renderOutbound, TERMINAL_HELP } from './terminal-format.js';
import { PromptQueue } from './terminal-prompts.js';

export const TERMINAL_PLATFORM = 'terminal';
/** The one conversation of a terminal (a direct conversation, as a DM with the bot). */
export const TERMINAL_CHANNEL = 'terminal';
/** Most fields a form asks at the prompt. */
const TERMINAL_FORM_FIELDS = 20;
/** Typed messages remembered so a reaction can say which one it marks (lines typed ahead show together). */
const REMEMBERED_MESSAGES = 100;
/** Characters of a message quoted by its reaction. */
const QUOTED_CHARS = 40;

const COMMANDS: Readonly<Record<string, CommandName>> = {
  '/model': 'model',
  '/status': 'status',
  '/cancel': 'cancel',
  '/steer': 'steer',
  '/new': 'close',
  '/close': 'close',
};
const REACTIONS: Record<ReactionCode, string> = {
  queued: '(queued: it is answered after the current turn)',
  refused: '(not sent: too many messages are waiting)',
};

export interface TerminalAdapterOptions {
  input: Readable;
  output: Writable;
  logger: Logger;
  /** The person at the terminal; platform user id `local`. */
  user?: PlatformUser;
}

export class TerminalAdapter extends AdapterBase implements ChannelAdapter {
  readonly platform = TERMINAL_PLATFORM;
  readonly capabilities: ChannelCapabilities = { maxMessageLength: 100_000, canEdit: true, canThread: false };
  readonly threadParticipants = 'owner';
  readonly features: ChannelFeatures;
  /** Resolves when the person leaves (`/quit`, end of input) or the adapter stops. */
  readonly ended: Promise<void>;
  private endNow: () => void = () => undefined;
  private readonly user: PlatformUser;
  private readonly conversation: Conversation = { kind: 'direct', channelId: TERMINAL_CHANNEL };
  private readonly shown = new Map<string, OutboundMessage>();
  private readonly typed = new Map<string, string>();
  private readonly prompts: PromptQueue;
  /** Approval and form cards, asked at the prompt. */
  private readonly cards: CardPrompts;
  private readline: Interface | undefined;
  private next = 0;

  constructor(private readonly options: TerminalAdapterOptions) {
    super(options.logger, 'terminal');
    this.user = options.user ?? { id: 'local', name: 'you' };
    this.prompts = new PromptQueue((text) => this.write(text));
    this.cards = new CardPrompts({
      user: this.user,
      prompts: this.prompts,
      send: (event) => this.send(event),
      writeLine: (text) => this.writeLine(text),
      responder: () => this.responder(),
    });
    this.ended = new Promise((resolve) => (this.endNow = resolve));
    this.features = {
      streaming: { open: () => this.openStream() },
      ephemeral: { whisper: (_channelId, _userId, _replyTo, text) => Promise.resolve(this.writeLine(text)) },
      forms: { maxFields: TERMINAL_FORM_FIELDS },
      direct: { conversations: true, open: () => Promise.resolve(TERMINAL_CHANNEL) },
    };
  }

  start(handler: InboundHandler, signal: AbortSignal): Promise<void> {
    this.handler = handler;
    this.current = 'connected';
    signal.addEventListener('abort', () => void this.stop(), { once: true });
    this.readline = createInterface({ input: this.options.input, terminal: false });
    this.writeLine('sandpiper chat — /help lists the commands, /quit leaves.');
    void this.readLines(this.readline);
    return Promise.resolve();
  }

  stop(): Promise<void> {
    if (this.current === 'stopped') return Promise.resolve();
    this.current = 'stopped';
    this.handler = undefined;
    this.readline?.close();
    this.endNow();
    return Promise.resolve();
  }

  post(_channelId: string, message: OutboundMessage): Promise<string> {
    if (this.current === 'stopped') return Promise.reject(new ChannelError('the terminal is closed'));
    const id = `t${++this.next}`;
    this.shown.set(id, message);
    const text = renderOutbound(message);
    if (text) this.writeLine(text);
    if (message.kind === 'approval' && message.card.outcome.status === 'pending')
      this.prompts.push({ ...this.cards.approvalPrompt(message.card), key: id });
    if (message.kind === 'form' && message.card.outcome.status === 'pending')
      this.prompts.push({ ...this.cards.formPrompt(message.card, id), key: id });
    return Promise.resolve(id);
  }

  edit(_channelId: string, messageId: string, message: OutboundMessage): Promise<void> {
    const before = this.shown.get(messageId);
    if (!before) return Promise.reject(new ChannelError('no such message', { code: 'NOT_FOUND' }));
    this.shown.set(messageId, message);
    if ((message.kind === 'approval' || message.kind === 'form') && message.card.outcome.status !== 'pending')
      this.prompts.drop(messageId);
    const added = renderEdit(before, message);
    if (added) this.writeLine(added);
    return Promise.resolve();
  }

  setTyping(): Promise<void> {
    return Promise.resolve();
  }

  /** Names the message it marks: lines typed ahead are all shown before their reactions come. */
  react(_channelId: string, messageId: string, reaction: ReactionCode): Promise<void> {
    const text = this.typed.get(messageId);
    this.writeLine(text === undefined ? REACTIONS[reaction] : `${REACTIONS[reaction]} “${quoted(text)}”`);
    return Promise.resolve();
  }

  commandText(name: CommandName): string {
    return `\`/${name === 'close' ? 'new' : name}\``;
  }

  /** No threads here: the conversation is the terminal itself. */
  startThread(channelId: string): Promise<string> {
    return Promise.resolve(channelId);
  }

  archiveThread(): Promise<void> {
    return Promise.resolve();
  }

  private async readLines(readline: Interface): Promise<void> {
    try {
      for await (const line of readline) {
        if (!(await this.onLine(line))) break;
      }
    } finally {
      await this.prompts.endAll();
      this.endNow();
    }
  }

  /** One typed line; false when the person leaves. */
  private async onLine(line: string): Promise<boolean> {
    if (await this.prompts.answer(line)) return true;
    const text = line.trim();
    if (text === '') return true;
    if (text === '/quit' || text === '/exit') return false;
    if (text === '/help') {
      this.writeLine(TERMINAL_HELP);
      return true;
    }
    const [word = '', ...rest] = text.split(/\s+/);
    const command = COMMANDS[word];
    const args = command === 'steer' ? { message: rest.join(' ') } : { model: rest.join(' ') };
    if (command)
      await this.send({
        type: 'command',
        name: command,
        user: this.user,
        conversation: this.conversation,
        args,
        respond: this.responder(),
        eventId: randomUUID(),
      });
    else await this.sendMessage(text);
    return true;
  }

  private async sendMessage(text: string): Promise<void> {
    const messageId = randomUUID();
    this.typed.set(messageId, text);
    for (const old of this.typed.keys()) {
      if (this.typed.size <= REMEMBERED_MESSAGES) break;
      this.typed.delete(old);
    }
    await this.send({
      type: 'message',
      user: this.user,
      conversation: this.conversation,
      messageId,
      text,
      mentioned: true,
    });
  }

  /** Hands an event to the gateway and waits for it to be handled (so the next line sees its prompts). */
  private async send(event: InboundEvent): Promise<void> {
    await this.handler?.(event).catch((error: unknown) =>
      this.logger.error({ error: String(error) }, 'inbound handler failed'),
    );
  }

  private responder(): { reply(text: string): Promise<void>; showForm(form: FormSpec): Promise<boolean> } {
    return { reply: (text) => Promise.resolve(this.writeLine(text)), showForm: () => Promise.resolve(false) };
  }

  private openStream(): NativeStream {
    let count = 0;
    return {
      get messageCount() {
        return count;
      },
      // A terminal's lines cannot be addressed again: nothing to record.
      messageIds: [],
      append: (text) => {
        count = 1;
        this.write(text);
        return Promise.resolve();
      },
      finish: () => Promise.resolve(this.write('\n')),
    };
  }

  private writeLine(text: string): void {
    this.write(`${text}\n`);
  }

  private write(text: string): void {
    if (text !== '') this.options.output.write(text);
  }
}

/** The start of a typed message, as a reaction quotes it. */
export function quoted(text: string): string {
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS - 1)}…` : text;
}
