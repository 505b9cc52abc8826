/** The ChannelAdapter port: posts/edits/cards out, capabilities and features; the inbound half is channel-inbound.ts. */
import type { PreparedItem } from '../agent/events.js';
import type { AttachmentAccess, ChannelHistory, CommandName, InboundHandler, PlatformUser } from './channel-inbound.js';

/** The inbound half of the port (events, commands, history), re-exported so the port is imported from one place. */
export * from './channel-inbound.js';

export type CardOutcome =
  | { status: 'pending' }
  /** `interrupted`: approved, but the gateway stopped while the calls ran (they may have run; they are not repeated). */
  | {
      status: 'approved' | 'always' | 'rejected' | 'cancelled' | 'interrupted';
      decidedBy: string;
      feedback?: string | null;
    };

/** An approval or plan-review card; buttons carry `approvalId`. */
export interface ApprovalCard {
  approvalId: string;
  /** `network`: one item, a sandboxed process asking to reach a host (buttons Allow once / Always here / Deny). */
  kind: 'tools' | 'plan' | 'network';
  items: readonly PreparedItem[];
  /** Plan text for plan reviews. */
  content?: string;
  outcome: CardOutcome;
}

/** One text field of a form; values come back as text keyed by `id`, and the gateway converts them. */
export interface FormField {
  /** Short id the submitted value is keyed by (`f0`…`f4`). */
  id: string;
  /** Label, plain text (platforms shorten long labels). */
  label: string;
  required: boolean;
  /** Hint shown in the empty field: allowed values, type or range. */
  placeholder: string;
  /** Pre-filled text ('' for none). */
  value: string;
  multiline: boolean;
  /** Longest accepted text. */
  maxLength: number;
  /**
   * The only accepted answers, when the field is a fixed choice (enum option titles, or `yes`/`no`). Platforms that can
   * show a drop-down do; the others keep a text input (the placeholder lists the choices).
   */
  choices?: readonly string[];
}

/** A form the gateway opens for one user (an MCP elicitation). */
export interface FormSpec {
  formId: string;
  /** Form title, plain text. */
  title: string;
  fields: readonly FormField[];
}

export type FormOutcome =
  | { status: 'pending' }
  /** The form cannot be shown on this platform (too many fields, unsupported types); `reason` is plain text. */
  | { status: 'unsupported'; reason: string }
  | { status: 'answered' | 'declined'; decidedBy: string }
  | { status: 'expired' | 'cancelled' };

/**
 * A card asking for input; while pending it carries Answer and Decline buttons with `formId`. With `purpose`
 * `authorization` it shows a call waiting for someone's sign-in (an MCP OAuth link sent privately): `message` says what
 * it waits for or how it ended, no fields, and one Cancel button (a click arrives as `decline`). Its outcomes read:
 * `answered` authorized, `declined` cancelled, `expired` timed out, `cancelled` ended otherwise.
 */
export interface FormCard {
  formId: string;
  purpose?: 'authorization';
  /** Who asks (the MCP server name), plain text. */
  source: string;
  /** The request text, plain text. */
  message: string;
  /** Labels of the fields the form asks for. */
  fieldLabels: readonly string[];
  /** ISO time after which the request is declined automatically. */
  expiresAt: string;
  outcome: FormOutcome;
}

/**
 * Notices the gateway asks for by code; each adapter owns the words (and the names of its commands). ADR: the
 * gateway never writes a platform's command, reaction or notice text itself.
 */
export type NoticeCode =
  | 'link-hint'
  | 'dm-unsupported'
  | 'notification-inactive'
  | 'closed'
  | 'reactivated'
  | 'cancelled'
  | 'cleared'
  | 'approval-card-failed'
  /** Attachments of the user's message were not used; `text` lists each file and why (plain text, one per line). */
  | 'attachments-skipped';

/** Reactions the gateway asks for by meaning; each adapter picks its emoji. */
export type ReactionCode = 'queued' | 'refused';

/** Where a new thread comes from: the message it hangs off, and the person who asked for it. */
export interface ThreadOrigin {
  /** The message the thread is started from (an @mention), when there is one. */
  fromMessageId?: string | undefined;
  /** Who asked (the mention's author, the `/ask` user); platforms may name them in an opener message. */
  requester?: PlatformUser | undefined;
}

/**
 * The key of one post of a turn's committed answer: part `part` (the chunk's place) of segment `segment` (`answer`) of
 * turn `turnId`. A platform with `answerPosts` makes one message per key: a post repeated after a crash returns (and
 * shows the text in) the message the first one made.
 */
export interface PostKey {
  turnId: string;
  segment: 'answer';
  part: number;
  /**
   * An earlier process may have made this post (a restart showing a committed answer): a platform that finds its keyed
   * messages by looking (Slack) looks before posting; one whose posts are idempotent anyway (Discord) ignores it.
   */
  again?: boolean;
}

/** What the gateway asks an adapter to show; the adapter decides how (plain text, embed, blocks). */
export type OutboundMessage =
  /**
   * `stoppable`: the text is the live message of a running turn and carries a Stop control; a click arrives as the
   * `cancel` command in the thread the message is in (with `removeControl`). The control goes with the next edit
   * without `stoppable`. `key` (posts only): the post is part of a committed answer (see `PostKey`).
   */
  | { kind: 'text'; text: string; stoppable?: boolean; key?: PostKey }
  | { kind: 'tool-call'; name: string; preview: string; status: 'running' | 'done' | 'error'; output?: string }
  | { kind: 'tool-result'; name: string; output: string; isError: boolean }
  | { kind: 'error'; message: string }
  | { kind: 'notice'; code: NoticeCode; text?: string }
  | { kind: 'approval'; card: ApprovalCard }
  | { kind: 'form'; card: FormCard };

export interface ChannelCapabilities {
  /** Longest text a single message may hold. */
  maxMessageLength: number;
  /** Whether posted messages can be edited (else the renderer posts once at the end). */
  canEdit: boolean;
  /** Whether `startThread` creates real threads. */
  canThread: boolean;
  /**
   * A second post with the same `key` returns the first message instead of posting again, each platform its own way
   * (Discord: a nonce derived from the key, `enforce_nonce`; Slack: message metadata, looked up when `again`).
   */
  answerPosts?: boolean;
  /**
   * In a cluster, messages of one thread may reach different instances (Slack spreads events over every instance's
   * connection; a Discord shard has one holder): their order is then kept across instances (claimed-order.ts).
   */
  spreadsEvents?: boolean;
}

/** Native text streaming (Slack `chat.startStream`). */
export interface StreamingFeature {
  /**
   * A natively streamed message for answer text in `channelId`, when this workspace and channel can stream; undefined
   * means post/edit. Tool lines and cards always go through `post`/`edit`.
   */
  open(channelId: string): NativeStream | undefined;
  /**
   * Ends a stream a previous process left open on `messageId` (it was killed before the stream's `finish`), so the
   * message can be edited like any other. A message that no longer streams stays as it is; any other failure throws
   * ChannelError.
   */
  end?(channelId: string, messageId: string, signal: AbortSignal): Promise<void>;
}

/** Private notes to one person inside a conversation (Slack ephemeral messages, Discord a reply that pings nobody). */
export interface EphemeralFeature {
  /** Tells `userId` something privately about the message `replyTo` they wrote in `channelId`. Best effort, never throws. */
  whisper(channelId: string, userId: string, replyTo: string, text: string, signal: AbortSignal): Promise<void>;
}

/** Forms a person fills in (Discord and Slack modals); `FormResponder.showForm` opens them. */
export interface FormsFeature {
  /** Most fields one form may have. */
  readonly maxFields: number;
}

/** Where and how attachments of inbound messages may be downloaded (ADR 0017). */
export interface AttachmentsFeature {
  /** For messages written in `channelId` (a route key): Slack answers with that channel's workspace's token. */
  access(channelId: string): AttachmentAccess | Promise<AttachmentAccess>;
}

/** A conversation's state shown by the platform (Slack agent sessions, ADR 0038). */
export interface SessionsFeature {
  /**
   * `processing` while a turn runs (`title` names a session being created), `suspended` while a card or form waits
   * for the user, `active` between turns, `closed` once the workstream is closed. Best effort, never throws.
   */
  status(channelId: string, status: SessionStatus, title: string | undefined, signal: AbortSignal): Promise<void>;
}

/** Direct messages with one person. */
export interface DirectFeature {
  /**
   * Whether direct messages are conversations (the platform's `dm` setting, default true); when false a DM gets the
   * `dm-unsupported` notice. Replies to notifications are routed either way.
   */
  readonly conversations: boolean;
  /** Opens (or finds) the direct-message channel with a platform user; resolves with its channel id. Throws ChannelError. */
  open(userId: string, signal: AbortSignal): Promise<string>;
}

/** Approvers configured on the platform (Discord `approver_roles`, Slack `approver_groups`). */
export interface ApproversFeature {
  /** Whether this person may decide any thread's approval cards, as admins may. False on failure. */
  isApprover(user: PlatformUser, signal: AbortSignal): Promise<boolean>;
}

/** Handing inbound events to other instances during a drain (ADR 0027). */
export interface DrainFeature {
  /**
   * Stops taking platform events while the gateway drains at shutdown; post and edit keep working until `stop`. Slack
   * closes its Socket Mode connection here, so Slack sends new events to the app's other connections.
   */
  stopInbound(): Promise<void>;
}

/**
 * What a platform offers beyond the core port (ADR 0043). Each is an object or absent; the gateway falls back where
 * one is absent (`src/gateway/channel-features.ts`): no ephemeral → a direct message, else a post; no streaming →
 * post and edit; no forms → the form card says so; no history → no catch-up; no attachments → files are ignored.
 */
export interface ChannelFeatures {
  readonly streaming?: StreamingFeature;
  readonly ephemeral?: EphemeralFeature;
  readonly forms?: FormsFeature;
  /** Missed-message recovery (catch-up, ADR 0015). */
  readonly history?: ChannelHistory;
  readonly attachments?: AttachmentsFeature;
  readonly sessions?: SessionsFeature;
  readonly direct?: DirectFeature;
  readonly approvers?: ApproversFeature;
  readonly drain?: DrainFeature;
}

/**
 * A message the platform streams natively (Slack `chat.startStream`): text is only ever appended, and `finish` makes it
 * final. The platform's own limits (length, lifetime) are the adapter's business: it rolls over to a new message.
 */
export interface NativeStream {
  /** Messages the stream has shown so far (0 until the first append). */
  readonly messageCount: number;
  /**
   * The platform ids of those messages, in order, for the gateway to record (`live_state`) so a restart can end and
   * edit a stream left open (`StreamingFeature.end`); empty where they cannot be addressed (the terminal).
   */
  readonly messageIds: readonly string[];
  /** Appends text; throws ChannelError, after which the stream is given up and the gateway shows the rest by post/edit. */
  append(text: string, signal: AbortSignal): Promise<void>;
  /**
   * Ends the stream (its messages become ordinary messages); with `key` its last message is that post of a committed
   * answer (see `PostKey`; `part` is counted by the stream's messages). Throws ChannelError.
   */
  finish(signal: AbortSignal, key?: PostKey): Promise<void>;
}

export type AdapterState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'stopped' | 'failed';

/** The core every platform implements; what only some can do is in `features` (ADR 0043). */
export interface ChannelAdapter {
  /** Platform key used in `channel_routes` / `channel_users` (`discord`, `slack`). */
  readonly platform: string;
  readonly capabilities: ChannelCapabilities;
  /** What this platform offers beyond the core; fixed for the adapter's life. */
  readonly features: ChannelFeatures;
  /**
   * Connects and starts delivering inbound events to `handler`. Resolves once connected; rejects with a
   * ChannelError when the platform refuses (bad token). Aborting `signal` stops the adapter.
   */
  start(handler: InboundHandler, signal: AbortSignal): Promise<void>;
  /** Disconnects; idempotent; no handler call happens after it resolves. */
  stop(): Promise<void>;
  /** Connection state for /health. */
  state(): AdapterState;
  /** Posts a message to a channel or thread; resolves with its id. Throws ChannelError on failure. */
  post(channelId: string, message: OutboundMessage, signal: AbortSignal): Promise<string>;
  /** Replaces a message the bot posted. Throws ChannelError on failure. */
  edit(channelId: string, messageId: string, message: OutboundMessage, signal: AbortSignal): Promise<void>;
  /** Shows "typing…" for a few seconds; best effort, never throws. */
  setTyping(channelId: string, signal: AbortSignal): Promise<void>;
  /**
   * Marks a message by meaning (`queued`: waits behind a turn; `refused`: the queue is full) with the platform's
   * reaction, or however it can show it; best effort, never throws.
   */
  react(channelId: string, messageId: string, reaction: ReactionCode, signal: AbortSignal): Promise<void>;
  /** How this platform writes one of our commands in text (Discord `/link`, Slack `/sandpiper link`), with code marks. */
  commandText(name: CommandName): string;
  /**
   * Who may write to a workstream from its thread (the platform's `thread_participants` setting): `owner` only, or
   * every `linked` user.
   */
  readonly threadParticipants: 'owner' | 'linked';
  /**
   * Opens a thread named `name` in `channelId`, started from `origin.fromMessageId` when given. Resolves with the
   * thread id (the channel id itself on platforms without threads).
   */
  startThread(channelId: string, name: string, origin: ThreadOrigin, signal: AbortSignal): Promise<string>;
  /** Archives/closes a thread; best effort, never throws. */
  archiveThread(threadId: string, signal: AbortSignal): Promise<void>;
}

/** A conversation's state as a platform's agent session shows it. */
export type SessionStatus = 'processing' | 'active' | 'suspended' | 'closed';
