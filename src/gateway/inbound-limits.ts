/**
 * Inbound limits on what people send to workstreams: a length cap and a sliding-window rate per
 * platform user. A refused message is never dropped silently: the first refusal of a burst gets a private notice
 * (the next notice only after a message was accepted again), every refused message gets the `refused` reaction.
 */
import { LRUCache } from 'lru-cache';
import type { ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import { whisper } from './channel-features.js';
import type { Logger } from '../shared/logger.js';

const MAX_USERS = 4096;

export interface InboundLimitsOptions {
  maxChars: number;
  /** Messages allowed per window and user. */
  limit: number;
  windowMs: number;
  now: () => number;
}

/** What to do with a message: send it, or refuse it (with the notice to show, unless one was shown for this burst). */
export type Admission = { admitted: true } | { admitted: false; notice: string | undefined };

interface UserWindow {
  times: number[];
  /** A rate notice was shown and no message was accepted since. */
  told: boolean;
}

export class InboundLimits {
  private readonly users = new LRUCache<string, UserWindow>({ max: MAX_USERS });

  constructor(private readonly options: InboundLimitsOptions) {}

  /** Checks (and, when admitted, counts) one message of `userKey` (`platform:userId`). Too long does not use a slot. */
  admit(userKey: string, text: string): Admission {
    const { maxChars, limit, windowMs, now } = this.options;
    // Counted in characters (code points); a text with no more UTF-16 units than the limit cannot have more of them.
    const length = text.length <= maxChars ? text.length : [...text].length;
    if (length > maxChars) {
      return { admitted: false, notice: `Message too long (${length} chars). Please keep messages under ${maxChars} characters.` };
    }
    const at = now();
    const window = this.users.get(userKey) ?? { times: [], told: false };
    window.times = window.times.filter((time) => at - time < windowMs);
    this.users.set(userKey, window);
    if (window.times.length >= limit) {
      const notice = window.told ? undefined : `You're sending messages too fast. Limit is ${limit} per ${formatWindow(windowMs)}.`;
      window.told = true;
      return { admitted: false, notice };
    }
    window.times.push(at);
    window.told = false;
    return { admitted: true };
  }
}

/**
 * Applies the limits to a message on its way to a workstream: true when it may go on. A refused message gets the
 * `refused` reaction and, once per burst, the private notice (`whisper`, with its fallbacks).
 */
export async function admitMessage(
  limits: InboundLimits, adapter: ChannelAdapter, event: Extract<InboundEvent, { type: 'message' }>, signal: AbortSignal, logger: Logger,
): Promise<boolean> {
  const admission = limits.admit(`${adapter.platform}:${event.user.id}`, event.text);
  if (admission.admitted) return true;
  const { channelId } = event.conversation;
  logger.info({ platform: adapter.platform, chars: event.text.length }, 'message refused by the inbound limits');
  await adapter.react(channelId, event.messageId, 'refused', signal);
  if (admission.notice !== undefined) await whisper(adapter, { channelId, userId: event.user.id, replyTo: event.messageId }, admission.notice, signal, logger);
  return false;
}

function formatWindow(windowMs: number): string {
  const seconds = windowMs / 1000;
  return seconds === 1 ? 'second' : `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} seconds`;
}
