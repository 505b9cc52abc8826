/**
 * Settling a turn the previous process did not finish (ADR 0013): its streamed text becomes an assistant message with a
 * marker, and tool calls without a result already read as "interrupted — may have run; not repeated" (the history
 * repair on load). The gateway then shows the note in the thread and resumes the turn once.
 */
import { INTERRUPTED_MARKER, INTERRUPTED_TOOL_RESULT } from '../shared/interruption.js';
import type { TurnJournalRow } from '../storage/turn-journal-store.js';
import type { AssistantMessage, Message } from './messages.js';
import type { StoredApprovalItems } from './turn/turn-types.js';

/** What the gateway needs to settle an interrupted turn in its thread. */
export interface InterruptedTurn {
  wsId: string;
  turnId: string;
  /** The text the model had streamed (what the live message should show before the note). */
  partialText: string;
  /** Tool calls that were running or about to run; they read as interrupted in the history. */
  interruptedCallIds: string[];
  /** The turn was itself a resumption: it is not resumed again. */
  wasResumed: boolean;
  /**
   * The turn's answer was committed (the *answered* commit point) but its end was not shown: its text, which the
   * gateway edits into place. Such a turn is never resumed or answered again.
   */
  answer?: string;
}

function isSynthesized(message: Message): boolean {
  return message.role === 'tool' && message.isError === true && message.content === INTERRUPTED_TOOL_RESULT;
}

/** Calls of the last assistant message that the repair answered as interrupted. */
export function interruptedCallIds(history: readonly Message[]): string[] {
  const ids: string[] = [];
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index] as Message;
    if (message.role !== 'tool') break;
    if (isSynthesized(message)) ids.unshift(message.toolCallId);
  }
  return ids;
}

/**
 * The committed answer of the journalled turn, when the history ends with it: an assistant message without tool calls
 * after the turn's message (the *accepted* write stores the message with the row, so an answer after it is this
 * turn's). Undefined when the turn was settled before (its kept text carries the interruption marker).
 */
export function committedAnswer(history: readonly Message[], row: TurnJournalRow): AssistantMessage | undefined {
  if (row.settled) return undefined;
  const last = history.at(-1);
  if (last?.role !== 'assistant' || (last.toolCalls?.length ?? 0) > 0 || last.content.endsWith(INTERRUPTED_MARKER))
    return undefined;
  return last;
}

/**
 * The assistant message to append for the journalled text, or undefined when there is none or it is already stored:
 * the call's message was committed before the crash (the history ends with it, or with its calls' results of which
 * some were still running). Text streamed after all results were stored is a new call's answer and is kept.
 */
export function partialAnswerMessage(history: readonly Message[], row: TurnJournalRow): AssistantMessage | undefined {
  if (row.settled || row.partialText.trim() === '') return undefined;
  if (history.at(-1)?.role === 'assistant' || interruptedCallIds(history).length > 0) return undefined;
  return { role: 'assistant', content: `${row.partialText}\n\n${INTERRUPTED_MARKER}` };
}

/**
 * A pending approval's calls are put back by the resumed batch (from the approval row): the copy the repair answered
 * as interrupted at the end of the loaded history is removed, so the calls appear once and can still run.
 */
export function withoutPendingBatch(history: Message[], stored: StoredApprovalItems): void {
  const ids = new Set((stored.assistant.toolCalls ?? []).map((call) => call.id));
  let start = history.length;
  while (start > 0 && history[start - 1]?.role === 'tool') start--;
  const assistant = history[start - 1];
  if (assistant?.role !== 'assistant' || !assistant.toolCalls?.length) return;
  if (!assistant.toolCalls.every((call) => ids.has(call.id))) return;
  history.splice(start - 1);
}
