/** Rebuilds a live workstream from its row, its stored history and any approval that was pending at a crash. */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../shared/errors.js';
import type { QueuedMessageRow, TurnJournalRow } from '../storage/turn-journal-store.js';
import type { WorkstreamRow } from '../storage/workstream-store.js';
import { decodeApprovalItems } from './approval-record.js';
import {
  committedAnswer,
  interruptedCallIds,
  partialAnswerMessage,
  withoutPendingBatch,
  type InterruptedTurn,
} from './interrupted-turn.js';
import type { ContentPart } from './messages.js';
import { LiveWorkstream } from './workstream.js';
import type { WaitingMessage } from './workstream-jobs.js';
import type { WorkstreamEnv } from './workstream-env.js';

export function workstreamDir(env: WorkstreamEnv, wsId: string): string {
  return path.join(env.agent.workspace_dir, wsId);
}

/**
 * A new live object for a row. Its working directory is created meanwhile (nothing before the first tool call needs
 * the folder, which tools wait for). A failure is logged; the tools then report the missing folder themselves.
 */
export async function instantiate(
  env: WorkstreamEnv,
  row: WorkstreamRow,
  restoring: boolean,
  stored?: Promise<void>,
): Promise<LiveWorkstream> {
  const cwd = workstreamDir(env, row.wsId);
  const folder = mkdir(cwd, { recursive: true }).then(
    () => undefined,
    (error: unknown) =>
      env.logger.error({ wsId: row.wsId, err: describeError(error) }, 'could not create the workstream folder'),
  );
  const history = restoring ? await env.stores.conversations.load(row.wsId) : [];
  return new LiveWorkstream({ row, history, cwd, folder, env, ...(stored === undefined ? {} : { stored }) });
}

function isSubAgentRequest(items: unknown): boolean {
  return typeof items === 'object' && items !== null && typeof (items as { subAgent?: unknown }).subAgent === 'string';
}

/**
 * Restores a workstream: undefined when the row is missing or closed. A turn the previous process left unfinished is
 * handed to `onInterrupted` (the manager's recovery), which settles it.
 */
export async function restoreWorkstream(
  env: WorkstreamEnv,
  wsId: string,
  onInterrupted: (turn: InterruptedTurn) => void,
): Promise<LiveWorkstream | undefined> {
  const row = await env.stores.workstreams.get(wsId);
  if (row === undefined || row.state === 'closed') return undefined;
  const ws = await instantiate(env, row, true);
  // Plan reviews and sub-agent requests cannot resume (the agent that waited is gone); a late click is answered as stale.
  const pending = (await env.stores.approvals.listPending(wsId)).filter(
    (approval) => approval.kind === 'tools' && !isSubAgentRequest(approval.items),
  );
  const latest = pending.at(-1);
  const batch = latest === undefined ? undefined : decodeApprovalItems(latest.items);
  if (batch?.ok === true) withoutPendingBatch(ws.history, batch.value);
  if (latest !== undefined && !ws.resumePendingApproval(latest)) {
    env.logger.warn(
      { wsId, approvalId: latest.approvalId },
      'pending approval has an unknown format; it cannot resume',
    );
  }
  const journal = await env.stores.turnJournal.forWorkstream(wsId);
  // A turn that waits for a pending approval is not interrupted: the click resumes it as before.
  if (journal !== undefined && journal.turnId !== latest?.turnId)
    onInterrupted(await settleJournalled(env, ws, journal));
  ws.setWaiting(waitingMessages(env, await env.stores.turnJournal.queued(wsId)));
  if (latest === undefined && (row.state === 'thinking' || row.state === 'running' || row.state === 'attention')) {
    // The process stopped mid-turn; the stored history was repaired on load.
    await ws.setState('idle');
  }
  env.logger.debug({ wsId, messages: ws.history.length, resumed: latest !== undefined }, 'workstream restored');
  return ws;
}

/** Puts the interrupted turn's streamed text into the history (once) and hands the turn to the gateway to settle. */
async function settleJournalled(env: WorkstreamEnv, ws: LiveWorkstream, row: TurnJournalRow): Promise<InterruptedTurn> {
  const answer = committedAnswer(ws.history, row);
  if (answer !== undefined) {
    // Answered: the turn is done; only its final edit may be missing from the thread.
    env.logger.info(
      { wsId: ws.wsId, turnId: row.turnId },
      'answered turn found; its answer is shown, not generated again',
    );
    return {
      wsId: ws.wsId,
      turnId: row.turnId,
      partialText: '',
      interruptedCallIds: [],
      wasResumed: row.resumed,
      answer: answer.content,
    };
  }
  const callIds = interruptedCallIds(ws.history);
  const message = partialAnswerMessage(ws.history, row);
  if (message !== undefined) {
    ws.history.push(message);
    await env.stores.conversations.append(ws.wsId, message);
  }
  if (!row.settled) await env.stores.turnJournal.markSettled(row.turnId);
  env.logger.info(
    { wsId: ws.wsId, turnId: row.turnId, partial: row.partialText.length, interruptedCalls: callIds.length },
    'interrupted turn settled',
  );
  return {
    wsId: ws.wsId,
    turnId: row.turnId,
    partialText: row.partialText,
    interruptedCallIds: callIds,
    wasResumed: row.resumed,
  };
}

/** The stored waiting messages; one that cannot be read is logged and left out (never run half-read). */
function waitingMessages(env: WorkstreamEnv, rows: readonly QueuedMessageRow[]): WaitingMessage[] {
  const messages: WaitingMessage[] = [];
  for (const row of rows) {
    try {
      const content = JSON.parse(row.content) as unknown;
      if (typeof content !== 'string' && !Array.isArray(content)) throw new Error('not a message');
      messages.push({ turnId: row.turnId, content: content as string | ContentPart[], origin: row.origin });
    } catch {
      env.logger.warn({ wsId: row.wsId, turnId: row.turnId }, 'a waiting message could not be read; it is left out');
    }
  }
  return messages;
}
