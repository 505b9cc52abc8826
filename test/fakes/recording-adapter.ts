/**
 * An in-memory ChannelAdapter that records what a user would see (posts, edits, reactions, threads, private replies)
 * and lets a test deliver inbound events as a platform would. As strict as the platforms: a post or edit the platform
 * would refuse (an empty or too long text, an edit of a message that is not there or not in that channel) fails.
 * Every change is announced (`next`, `until`), so tests wait on events instead of polling. It runs the channel-adapter
 * contract (test/contracts/channel-adapter/) like the real platforms.
 */
import type {
  AdapterState,
  ApprovalCard,
  AttachmentAccess,
  ChannelAdapter,
  ChannelCapabilities,
  ChannelFeatures,
  CommandName,
  FormCard,
  FormSpec,
  InboundEvent,
  InboundHandler,
  OutboundMessage,
  PlatformUser,
  ReactionCode,
  ThreadOrigin,
} from '../../src/channels/channel-adapter.js';
import { ChannelError } from '../../src/shared/errors.js';
import { Arrivals } from './arrivals.js';

export interface Shown {
  id: string;
  channelId: string;
  message: OutboundMessage;
  edits: number;
}

export interface RecordingAdapterOptions {
  platform?: string;
  capabilities?: Partial<ChannelCapabilities>;
  threadParticipants?: 'owner' | 'linked';
  /**
   * Whether the adapter has private notes (`features.ephemeral`, recorded in `whispers`); default true. False leaves
   * the gateway's fallback to show (a DM, `dm-<user>`).
   */
  whisper?: boolean;
  /** Most fields a form may have (`features.forms`); 0 leaves forms out. Default 5. */
  maxFormFields?: number;
  /** Where attachments may be downloaded from (`features.attachments`); absent: attachments are ignored. */
  attachmentAccess?: AttachmentAccess;
  /** DMs are conversations (`features.direct.conversations`); default true. */
  directMessages?: boolean;
}

/** One change a user could see, as the adapter announces it. */
export interface RecordedChange {
  kind: 'post' | 'edit' | 'react' | 'whisper' | 'thread' | 'archive' | 'reply' | 'form';
  channelId: string;
  messageId?: string;
}

/** What one interaction's user saw privately. */
export interface Seen {
  replies: string[];
  forms: FormSpec[];
  feedbackOpened: number;
}

type Deliverable = InboundEvent extends infer E ? (E extends { respond: unknown } ? Omit<E, 'respond'> : E) : never;

export class RecordingAdapter implements ChannelAdapter {
  readonly platform: string;
  capabilities: ChannelCapabilities;
  features: ChannelFeatures;
  readonly threadParticipants: 'owner' | 'linked';
  readonly shown: Shown[] = [];
  readonly reactions: Array<{ channelId: string; messageId: string; reaction: ReactionCode }> = [];
  readonly threads: Array<{ id: string; parentId: string; name: string; origin: ThreadOrigin }> = [];
  readonly archived: string[] = [];
  /** Ids of messages a moderator deleted: edits of them fail with NOT_FOUND. */
  readonly deleted = new Set<string>();
  /** The next N edits fail with a server error. */
  failEdits = 0;
  /**
   * The next N edits meet a rate limit: the adapter reports it (`rate-limited`, 300 ms) and the edit then goes
   * through, as a client library that waits and retries does. `rateLimited` counts them.
   */
  rateLimitEdits = 0;
  rateLimited = 0;
  /** Every change, for `next` and `until`. */
  private readonly changes = new Arrivals<RecordedChange>();
  typing = 0;
  /** Private notes sent through `features.ephemeral` (unless the `whisper` option is false). */
  readonly whispers: Array<{ channelId: string; userId: string; text: string }> = [];
  /** Platform user ids `isApprover` answers true for (a configured role or user group). */
  readonly approvers = new Set<string>();
  /** Errors the gateway's handler threw on events the adapter delivered on its own (none expected). */
  readonly failures: unknown[] = [];
  private handler: InboundHandler | undefined;
  private current: AdapterState = 'idle';
  private sequence = 0;

  constructor(options: RecordingAdapterOptions = {}) {
    this.platform = options.platform ?? 'fake';
    this.capabilities = { maxMessageLength: 2000, canEdit: true, canThread: true, ...options.capabilities };
    this.threadParticipants = options.threadParticipants ?? 'owner';
    const maxFields = options.maxFormFields ?? 5;
    const access = options.attachmentAccess;
    this.features = {
      ...(maxFields > 0 && { forms: { maxFields } }),
      ...(options.whisper !== false && {
        ephemeral: { whisper: (channelId, userId, _replyTo, text) => this.recordWhisper(channelId, userId, text) },
      }),
      ...(access && { attachments: { access: () => access } }),
      direct: { conversations: options.directMessages ?? true, open: (userId) => Promise.resolve(`dm-${userId}`) },
      approvers: { isApprover: (user) => Promise.resolve(this.approvers.has(user.id)) },
    };
  }

  private recordWhisper(channelId: string, userId: string, text: string): Promise<void> {
    this.whispers.push({ channelId, userId, text });
    this.changes.record({ kind: 'whisper', channelId });
    return Promise.resolve();
  }

  /** The next change of `kind` (after this call) that `match` accepts; rejects naming it after `timeoutMs`. */
  next(
    kind: RecordedChange['kind'],
    match: (change: RecordedChange) => boolean = () => true,
    timeoutMs = 15_000,
  ): Promise<RecordedChange> {
    return this.changes.next(
      (change) => change.kind === kind && match(change),
      `the recording adapter's next ${kind}`,
      timeoutMs,
    );
  }

  /** Resolves with `probe`'s first truthy value, checked now and after each change; rejects naming `what` after `timeoutMs`. */
  until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 15_000): Promise<T> {
    return this.changes.until(probe, `recording adapter: ${what}`, timeoutMs);
  }

  start(handler: InboundHandler): Promise<void> {
    this.handler = handler;
    this.current = 'connected';
    return Promise.resolve();
  }

  stop(): Promise<void> {
    this.handler = undefined;
    this.current = 'stopped';
    return Promise.resolve();
  }

  state(): AdapterState {
    return this.current;
  }

  commandText(name: CommandName): string {
    return `\`/${name}\``;
  }

  post(channelId: string, message: OutboundMessage): Promise<string> {
    const refused = this.refusal(message);
    if (refused) return Promise.reject(refused);
    const id = `m${++this.sequence}`;
    this.shown.push({ id, channelId, message, edits: 0 });
    this.changes.record({ kind: 'post', channelId, messageId: id });
    return Promise.resolve(id);
  }

  edit(channelId: string, messageId: string, message: OutboundMessage): Promise<void> {
    if (this.failEdits > 0) {
      this.failEdits -= 1;
      return Promise.reject(new ChannelError('edit failed (HTTP 500)'));
    }
    const entry = this.shown.find((shown) => shown.id === messageId && !this.deleted.has(shown.id));
    // A platform finds a message within its channel: an id from another channel is unknown there.
    if (entry?.channelId !== channelId) return Promise.reject(new ChannelError('gone', { code: 'NOT_FOUND' }));
    const refused = this.refusal(message);
    if (refused) return Promise.reject(refused);
    if (this.rateLimitEdits > 0) {
      this.rateLimitEdits -= 1;
      this.rateLimited += 1;
      this.deliverQuietly({ type: 'rate-limited', channelId, retryAfterMs: 300 });
    }
    entry.message = message;
    entry.edits += 1;
    this.changes.record({ kind: 'edit', channelId, messageId });
    return Promise.resolve();
  }

  /** What a platform answers a text it will not show with: empty (HTTP 400) or longer than one message may be. */
  private refusal(message: OutboundMessage): ChannelError | undefined {
    if (message.kind !== 'text') return undefined;
    if (message.text.trim() === '') return new ChannelError('empty message (HTTP 400)');
    if (message.text.length > this.capabilities.maxMessageLength)
      return new ChannelError(`message longer than ${this.capabilities.maxMessageLength} characters (HTTP 400)`);
    return undefined;
  }

  /** A platform notice the gateway handles on the side (a rate-limit hint); a failure to handle it is kept in `failures`. */
  private deliverQuietly(event: InboundEvent): void {
    void this.handler?.(event).catch((error: unknown) => this.failures.push(error));
  }

  setTyping(): Promise<void> {
    this.typing += 1;
    return Promise.resolve();
  }

  react(channelId: string, messageId: string, reaction: ReactionCode): Promise<void> {
    this.reactions.push({ channelId, messageId, reaction });
    this.changes.record({ kind: 'react', channelId, messageId });
    return Promise.resolve();
  }

  startThread(channelId: string, name: string, origin: ThreadOrigin): Promise<string> {
    const id = `${channelId}/t${this.threads.length + 1}`;
    this.threads.push({ id, parentId: channelId, name, origin });
    this.changes.record({ kind: 'thread', channelId: id });
    return Promise.resolve(id);
  }

  archiveThread(threadId: string): Promise<void> {
    this.archived.push(threadId);
    this.changes.record({ kind: 'archive', channelId: threadId });
    return Promise.resolve();
  }

  /**
   * Delivers an inbound event as the platform would (interactions get a recording responder) and resolves when the
   * gateway finished handling it. `feedbackForm` on an action makes it a Reject click that may open the form; `seen`
   * is filled as the private answers come (a test can wait on it before the handler finished).
   */
  async deliver(event: Deliverable, options: { feedbackForm?: boolean; seen?: Seen } = {}): Promise<Seen> {
    if (!this.handler) throw new Error('the adapter is not started');
    const seen: Seen = options.seen ?? { replies: [], forms: [], feedbackOpened: 0 };
    const where = { channelId: 'conversation' in event ? event.conversation.channelId : '' };
    const respond = {
      reply: (text: string) => {
        seen.replies.push(text);
        this.changes.record({ kind: 'reply', ...where });
        return Promise.resolve();
      },
      showForm: (form: FormSpec) => {
        seen.forms.push(form);
        this.changes.record({ kind: 'form', ...where });
        return Promise.resolve(true);
      },
    };
    const openFeedback = (): Promise<boolean> => {
      seen.feedbackOpened += 1;
      this.changes.record({ kind: 'form', ...where });
      return Promise.resolve(true);
    };
    const full = {
      ...event,
      respond,
      ...(event.type === 'action' && options.feedbackForm ? { openFeedback } : {}),
    } as InboundEvent;
    await this.handler(full);
    return seen;
  }

  /** Plain texts shown in a channel (or everywhere), deleted ones left out. */
  texts(channelId?: string): string[] {
    return this.visible(channelId).flatMap((shown) => (shown.message.kind === 'text' ? [shown.message.text] : []));
  }

  /** Notices shown in a channel, by code. */
  notices(channelId?: string): string[] {
    return this.visible(channelId).flatMap((shown) => (shown.message.kind === 'notice' ? [shown.message.code] : []));
  }

  approvalCards(channelId?: string): ApprovalCard[] {
    return this.visible(channelId).flatMap((shown) => (shown.message.kind === 'approval' ? [shown.message.card] : []));
  }

  cardFor(formId: string): FormCard | undefined {
    const found = this.shown.find((shown) => shown.message.kind === 'form' && shown.message.card.formId === formId);
    return found?.message.kind === 'form' ? found.message.card : undefined;
  }

  private visible(channelId: string | undefined): Shown[] {
    return this.shown.filter(
      (shown) => !this.deleted.has(shown.id) && (channelId === undefined || shown.channelId === channelId),
    );
  }
}

/** A platform user for inbound events. */
export function person(id: string, name = id): PlatformUser {
  return { id, name };
}
