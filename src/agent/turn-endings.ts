/** Jobs of a workstream's queue that end without a model call: no model configured, a held watch result, a dropped resumption. */
import { describeError } from '../shared/errors.js';
import { contentText } from './messages.js';
import { WATCH_HELD_NOTE, type Job } from './workstream-jobs.js';
import type { WorkstreamEnv } from './workstream-env.js';
import type { LiveWorkstream } from './workstream.js';

function logError(env: WorkstreamEnv, wsId: string, what: string): (error: unknown) => void {
  return (error) => env.logger.error({ wsId, err: describeError(error) }, `${what} failed`);
}

/** The turn cannot run without a model: said in the thread, and a waiting message's row goes (it was answered so). */
export async function endWithoutModel(ws: LiveWorkstream, env: WorkstreamEnv, job: Job): Promise<void> {
  // A restored approval can never run without a model: end it rather than leave a click nobody acts on.
  if (job.kind === 'resume') await dropResumed(ws, env, job.approvalId);
  ws.emit({ type: 'error', message: 'No model is configured for this workstream.' });
  ws.emit({ type: 'turn-end', turnId: job.turnId, text: '', reason: 'error' });
  await env.stores.turnJournal
    .apply([
      { kind: 'begin', turnId: job.turnId, wsId: ws.wsId, resumed: false, waited: true },
      { kind: 'end', turnId: job.turnId, wsId: ws.wsId },
    ])
    .catch(logError(env, ws.wsId, 'removing a waiting message'));
}

/** Beyond the chain limit a watch result starts no model call: it is stored, and the thread says so. */
export async function holdWatchResult(
  ws: LiveWorkstream,
  env: WorkstreamEnv,
  job: Extract<Job, { kind: 'user' }>,
  chain: number,
): Promise<void> {
  const message = { role: 'user' as const, content: job.content };
  ws.history.push(message);
  await env.stores.conversations
    .append(ws.wsId, message)
    .catch(logError(env, ws.wsId, 'persisting a held watch result'));
  env.logger.warn({ wsId: ws.wsId, chain }, 'watch chain limit reached; result held for the next message');
  ws.emit({ type: 'turn-start', turnId: job.turnId, userMessage: contentText(job.content), origin: 'watch' });
  ws.emit({ type: 'turn-end', turnId: job.turnId, text: WATCH_HELD_NOTE, reason: 'done' });
}

/** A resumed approval that will not run: its waiter and row go, and its card stops offering buttons. */
export async function dropResumed(ws: LiveWorkstream, env: WorkstreamEnv, approvalId: string): Promise<void> {
  const waited = env.waiters.has(approvalId);
  env.waiters.drop(approvalId);
  await env.stores.approvals.cancelPending(ws.wsId).catch(logError(env, ws.wsId, 'cancelling an approval'));
  if (waited) ws.emitApprovalCancelled(approvalId);
}
