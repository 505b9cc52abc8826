/**
 * An in-memory ChannelAdapter that records what a user would see (posts, edits, reactions, threads, private replies)
 * and lets a test deliver inbound events as a platform would. For fast gateway unit tests; the real platforms run
 * against the same contract in test/contracts/channel-adapter.contract.ts.
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
  typing = 0;
  /** Private notes sent through `features.ephemeral` (unless the `whisper` option is false). */
  readonly whispers: Array<{ channelId: string; userId: string; text: string }> = [];
  /** Platform user ids `isApprover` answers true for (a configured role or user group). */
  readonly approvers = new Set<string>();
  private handler: InboundHandler | undefined;
  private current: AdapterState = 'idle';
  private next = 0;

  constructor(options: RecordingAdapterOptions = {}) {
    this.platform = options.platform ?? 'fake';
    this.capabilities = { maxMessageLength: 2000, canEdit: true, canThread: true, ...options.capabilities };
    this.threadParticipants = options.threadParticipants ?? 'owner';
    const maxFields = options.maxFormFields ?? 5;
    const access = options.attachmentAccess;
    this.features = {
      ...(maxFields > 0 && { forms: { maxFields } }),
      ...(options.whisper !== false && { ephemeral: { whisper: (channelId, userId, _replyTo, text) => this.recordWhisper(channelId, userId, text) } }),
      ...(access && { attachments: { access: () => access } }),
      direct: { conversations: options.directMessages ?? true, open: (userId) => Promise.resolve(`dm-${userId}`) },
      approvers: { isApprover: (user) => Promise.resolve(this.approvers.has(user.id)) },
    };
  }

  private recordWhisper(channelId: string, userId: string, text: string): Promise<void> {
    this.whispers.push({ channelId, userId, text });
    return Promise.resolve();
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
    if (message.kind === 'text' && message.text.trim() === '') return Promise.reject(new ChannelError('empty message (HTTP 400)'));
    const id = `m${++this.next}`;
    this.shown.push({ id, channelId, message, edits: 0 });
    return Promise.resolve(id);
  }

  edit(_channelId: string, messageId: string, message: OutboundMessage): Promise<void> {
    if (this.failEdits > 0) {
      this.failEdits -= 1;
      return Promise.reject(new ChannelError('edit failed (HTTP 500)'));
    }
    const entry = this.shown.find((shown) => shown.id === messageId && !this.deleted.has(shown.id));
    if (!entry) return Promise.reject(new ChannelError('gone', { code: 'NOT_FOUND' }));
    entry.message = message;
    entry.edits += 1;
    return Promise.resolve();
  }

  setTyping(): Promise<void> {
    this.typing += 1;
    return Promise.resolve();
  }

  react(channelId: string, messageId: string, reaction: ReactionCode): Promise<void> {
    this.reactions.push({ channelId, messageId, reaction });
    return Promise.resolve();
  }

  startThread(channelId: string, name: string, origin: ThreadOrigin): Promise<string> {
    const id = `${channelId}/t${this.threads.length + 1}`;
    this.threads.push({ id, parentId: channelId, name, origin });
    return Promise.resolve(id);
  }

  archiveThread(threadId: string): Promise<void> {
    this.archived.push(threadId);
    return Promise.resolve();
  }

  /**
   * Delivers an inbound event as the platform would (interactions get a recording responder) and resolves when the
   * gateway finished handling it. `feedback: true` on an action makes it a Reject click that may open the form.
   */
  async deliver(event: Deliverable, options: { feedbackForm?: boolean } = {}): Promise<Seen> {
    if (!this.handler) throw new Error('the adapter is not started');
    const seen: Seen = { replies: [], forms: [], feedbackOpened: 0 };
    const respond = {
      reply: (text: string) => {
        seen.replies.push(text);
        return Promise.resolve();
      },
      showForm: (form: FormSpec) => {
        seen.forms.push(form);
        return Promise.resolve(true);
      },
    };
    const openFeedback = (): Promise<boolean> => {
      seen.feedbackOpened += 1;
      return Promise.resolve(true);
    };
    const full = { ...event, respond, ...(event.type === 'action' && options.feedbackForm ? { openFeedback } : {}) } as InboundEvent;
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
    return this.shown.filter((shown) => !this.deleted.has(shown.id) && (channelId === undefined || shown.channelId === channelId));
  }
}

/** A platform user for inbound events. */
export function person(id: string, name = id): PlatformUser {
  return { id, name };
}
