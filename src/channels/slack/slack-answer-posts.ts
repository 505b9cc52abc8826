/**
 * Keyed answer posts on Slack (`answerPosts`, docs/design/durability.md): Slack has no idempotent post, so each post of
 * a committed answer carries message metadata naming its key, and a post that may repeat one an earlier process made
 * (`PostKey.again`, a restart) first looks for that message in the thread (`conversations.replies` with
 * `include_all_metadata`) and edits the text into it instead of posting again.
 */
import type { PostKey } from '../channel-adapter.js';
import type { SlackCall } from './slack-calls.js';
import { parseTarget } from './slack-events.js';

/** The metadata `event_type` of an answer's post. */
export const ANSWER_EVENT_TYPE = 'sandpiper_answer';
/** Messages read per page, and pages read at most (a thread longer than this is searched from its start only). */
const PAGE_SIZE = 200;
const MAX_PAGES = 25;

export interface AnswerMetadata {
  event_type: string;
  event_payload: { turn_id: string; segment: string; part: number };
}

/** The message metadata of a keyed post. */
export function answerMetadata(key: PostKey): AnswerMetadata {
  return {
    event_type: ANSWER_EVENT_TYPE,
    event_payload: { turn_id: key.turnId, segment: key.segment, part: key.part },
  };
}

interface RepliedMessage {
  ts?: unknown;
  bot_id?: unknown;
  metadata?: { event_type?: unknown; event_payload?: Record<string, unknown> };
}

/** Whether a message of the thread is a bot's post carrying `key`. */
function carries(message: RepliedMessage, key: PostKey): boolean {
  const payload = message.metadata?.event_payload;
  return (
    typeof message.bot_id === 'string' &&
    message.metadata?.event_type === ANSWER_EVENT_TYPE &&
    payload?.turn_id === key.turnId &&
    payload.segment === key.segment &&
    Number(payload.part) === key.part
  );
}

/**
 * The ts of the message in `channelId` (a route key) that carries `key`, when one was posted; undefined otherwise.
 * Throws ChannelError when the thread cannot be read (the caller's post then fails and is retried).
 */
export async function findAnswerPost(
  call: SlackCall,
  channelId: string,
  key: PostKey,
  signal: AbortSignal,
): Promise<string | undefined> {
  const { channel, threadTs } = parseTarget(channelId);
  const method = threadTs === undefined ? 'conversations.history' : 'conversations.replies';
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const args = {
      channel,
      ...(threadTs === undefined ? {} : { ts: threadTs }),
      include_all_metadata: true,
      limit: PAGE_SIZE,
      ...(cursor === undefined ? {} : { cursor }),
    };
    const result = await call(method, args, signal);
    const messages = Array.isArray(result.messages) ? (result.messages as RepliedMessage[]) : [];
    const found = messages.find((message) => carries(message, key));
    if (found !== undefined) return String(found.ts ?? '');
    const next = (result.response_metadata as { next_cursor?: unknown } | undefined)?.next_cursor;
    // Without a thread the newest page is enough: an answer's post outside a thread is among the newest messages.
    if (threadTs === undefined || typeof next !== 'string' || next === '') return undefined;
    cursor = next;
  }
  return undefined;
}
