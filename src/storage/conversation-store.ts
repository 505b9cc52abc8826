/** Conversation history (`conversations` + full-text index). */
import type { Message } from '../agent/messages.js';

export interface SearchHit {
  id: number;
  wsId: string;
  role: string;
  content: string;
  /** The tool of a tool result row; '' otherwise. */
  toolName: string;
  /** The tool calls of an assistant row (names and JSON arguments); [] otherwise. */
  toolCalls: Array<{ name: string; arguments: string }>;
  timestamp: string;
}

export interface ConversationSearchOptions {
  wsId?: string;
  /** Only workstreams owned by this user. */
  userId?: string;
  limit?: number;
}

export interface ConversationStore {
  /** Appends one message to a workstream's history; resolves once it is committed. */
  append(wsId: string, message: Message): Promise<void>;
  /**
   * The history in order, repaired: a tool call without a stored result (a turn interrupted by a restart) gets the
   * result INTERRUPTED_TOOL_RESULT, so the model knows it may have run. System messages are never stored.
   */
  load(wsId: string): Promise<Message[]>;
  /** Full-text search over message content and tool-call arguments, best match first. */
  search(query: string, options?: ConversationSearchOptions): Promise<SearchHit[]>;
  /** Replaces the whole history (compaction). */
  replace(wsId: string, messages: readonly Message[]): Promise<void>;
  count(wsId: string): Promise<number>;
}
