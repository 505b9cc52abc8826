/**
 * The inbound half of the ChannelAdapter port: who wrote, where, what they clicked or typed (`InboundEvent`), the
 * commands a platform offers, and the history catch-up reads. The outbound half and the port are channel-adapter.ts.
 */
import type { FormSpec } from './channel-adapter.js';
/** A person on the platform, as the adapter saw them. */
export interface PlatformUser {
  /** Platform user id (Discord snowflake, Slack `U…`). */
  id: string;
  /** Display name, plain text (the gateway escapes it before echoing). */
  name: string;
  /** Discord role ids of the member, when the event carries them (interactions in a server). */
  roles?: readonly string[];
}

/** Where a message was written. */
export interface Conversation {
  /** `channel` (a top-level channel), `thread` (inside a thread) or `direct` (a DM). */
  kind: 'channel' | 'thread' | 'direct';
  /** The channel or thread id the message was posted in. */
  channelId: string;
}

/** Answers an interaction privately (to the clicking/typing user only). */
export interface Responder {
  /** Sends (or replaces) the private answer. Never throws; failures are logged by the adapter. */
  reply(text: string): Promise<void>;
}

/** Answers a click that may open a form: the first answer either opens the form or replies privately. */
export interface FormResponder extends Responder {
  /**
   * Opens `form` for the clicking user. Only possible as the first answer to an `open` click and within the
   * platform's acknowledgement window; resolves false when that is no longer possible (then `reply` instead).
   */
  showForm(form: FormSpec): Promise<boolean>;
}

/** A file attached to an inbound message, as the platform described it (nothing is downloaded by the adapter). */
export interface InboundAttachment {
  /** File name as the user uploaded it (untrusted: the gateway sanitises it before saving). */
  name: string;
  /** Where the platform serves the bytes (Discord attachment URL, Slack `url_private_download`); '' when none was given. */
  url: string;
  /** Size in bytes the platform reported, when it did. */
  size?: number | undefined;
  /** Content type the platform reported, when it did. */
  contentType?: string | undefined;
}

/** How the gateway may download a platform's attachments (ADR 0017). */
export interface AttachmentAccess {
  /** Origins (`https://cdn.discordapp.com`) files are fetched from; a URL or redirect anywhere else is refused. */
  origins: readonly string[];
  /** Headers sent with each download (Slack: the bot token); they only ever go to `origins`. */
  headers: Readonly<Record<string, string>>;
}

/** `signout`: forget the user's own sign-in to an MCP server (`server`; every server without it). */
/** Every command a platform offers (Discord slash commands, Slack subcommands, the terminal's lines). */
export const COMMAND_NAMES = [
  'link',
  'unlink',
  'ask',
  'status',
  'close',
  'cancel',
  'model',
  'signout',
  'grants',
  'forget',
  'mcp',
  'steer',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];
/** `deny`: a network card's Deny (a rejection without a feedback form). */
export type ActionName = 'approve' | 'always' | 'reject' | 'deny' | 'plan-approve' | 'plan-changes';

/** Everything an adapter reports to the gateway. Interactions are already acknowledged when they arrive (but see `form`). */
export type InboundEvent =
  | {
      type: 'message';
      user: PlatformUser;
      conversation: Conversation;
      messageId: string;
      /** Message text without the bot mention, trimmed. */
      text: string;
      /** True when the bot was explicitly mentioned (not @everyone). */
      mentioned: boolean;
      /** Files attached to the message (Discord attachments, Slack `files`); absent or empty when none. */
      attachments?: readonly InboundAttachment[];
      /**
       * The message this one answers, when it answers one: on Discord the message it replies to, on Slack the root of
       * the thread it was written in. A notification reply is found by it.
       */
      replyTo?: string | undefined;
    }
  | {
      type: 'command';
      name: CommandName;
      user: PlatformUser;
      conversation: Conversation;
      /** `message` for ask and steer, `token` for link, `model` (an alias, as typed) for ask and model, `server` for signout, `revoke` (a grant id) for grants, `memory` (a name) for forget, `action` for mcp (`refresh`). */
      args: {
        message?: string;
        token?: string;
        model?: string;
        server?: string;
        revoke?: string;
        memory?: string;
        action?: string;
      };
      respond: Responder;
      /** The platform's id of this invocation (interaction / trigger id); the dedup ledger records it first. */
      eventId?: string;
      /**
       * Present when the command came from a control on a message (the Stop button): removes that control from its
       * message. The gateway calls it when the control no longer applies (nothing runs, e.g. after a restart).
       */
      removeControl?: () => Promise<void>;
    }
  | {
      /**
       * The user is typing a command option that offers suggestions (Discord autocomplete of `model`); `respond`
       * shows the choices (at most 25). Never acknowledged beforehand: the platform waits for the choices.
       */
      type: 'suggest';
      field: 'model';
      /** What the user typed so far. */
      query: string;
      user: PlatformUser;
      respond(choices: readonly { label: string; value: string }[]): Promise<void>;
    }
  | {
      type: 'action';
      name: ActionName;
      approvalId: string;
      user: PlatformUser;
      /** Optional text from the reject / request-changes form. */
      feedback: string | null;
      respond: Responder;
      /** The platform's id of this click or submission; the dedup ledger records it first. */
      eventId?: string;
      /**
       * Present on a Reject / Request-changes click that has not been acknowledged yet: opens the platform's
       * feedback form (whose submission arrives as another `action` with `feedback`). Only possible as the first
       * answer, within the acknowledgement window; resolves false when that is no longer possible (then `reply`).
       * The gateway checks who clicked first, so strangers get a refusal instead of a form.
       */
      openFeedback?: () => Promise<boolean>;
    }
  | {
      /**
       * A click or submission on a form card: `open` (Answer), `submit` (the filled form), `decline` (Decline).
       * `submit` and `decline` arrive acknowledged; `open` is acknowledged by the first `respond` call (the adapter
       * acknowledges privately by itself when the gateway takes too long, and `showForm` then resolves false).
       */
      type: 'form';
      action: 'open' | 'submit' | 'decline';
      formId: string;
      user: PlatformUser;
      /** Submitted text by field id (`submit` only; empty otherwise). */
      values: Readonly<Record<string, string>>;
      respond: FormResponder;
      /** The platform's id of this click or submission; the dedup ledger records it first. */
      eventId?: string;
    }
  | {
      /** The platform asked us to slow down on this channel; the renderer stretches its cadence. */
      type: 'rate-limited';
      channelId: string;
      retryAfterMs: number;
    };

export type InboundHandler = (event: InboundEvent) => Promise<void>;

/** A message event (what history fetches return). */
export type InboundMessage = Extract<InboundEvent, { type: 'message' }>;

/** Where a history fetch starts: after the last handled message, and never before `sinceMs`. */
export interface HistoryStart {
  /** The newest message already handled in the conversation (exclusive), when known. */
  afterId?: string | undefined;
  /** Oldest time to fetch from (epoch ms): the catch-up window. */
  sinceMs: number;
}

/**
 * Missed-message recovery (catch-up, ADR 0015): what was written while the gateway was down or its connection lost
 * events. Platforms without a history leave it out.
 */
export interface ChannelHistory {
  /** Top-level channels the bot answers mentions in (the allow-list, or the channels it can see). */
  channels(signal: AbortSignal): Promise<readonly string[]>;
  /**
   * Messages of a channel or thread after `start`, oldest first, at most `limit`, as the inbound events live
   * delivery would have made (bots, ourselves and channels outside the allow-list left out). Pages through the
   * platform's history within its rate limits. Throws ChannelError (an unknown or inaccessible conversation).
   */
  messagesAfter(channelId: string, start: HistoryStart, limit: number, signal: AbortSignal): Promise<InboundMessage[]>;
  /**
   * Calls `listener` whenever events may have been lost since `lostAtMs`: a reconnect that was not a clean resume
   * (Discord: a new session after op 9; Slack: every new socket). Returns the unsubscribe function.
   */
  onGap(listener: (lostAtMs: number) => void): () => void;
}
