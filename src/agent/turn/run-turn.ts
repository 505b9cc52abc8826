/** The turn loop: call the model, prepare/approve/execute its tool calls, append results, until it answers. */
import { traceTurn } from '../agent-telemetry.js';
import { isAbortError, untilAborted } from '../../shared/abort.js';
import { describeError, ProviderError } from '../../shared/errors.js';
import type { AssistantMessage, ToolMessage } from '../messages.js';
import { applyDecision, approveToolCalls, type ApprovalOutcome } from './approve-tool-calls.js';
import type { PartialText } from './call-model.js';
import { callWithCompaction, isContextLengthError } from './call-with-compaction.js';
import { durableWriteNote, isDurableWriteError } from './durable-write.js';
import { timeoutNote } from './timeout-note.js';
import { CANCELLED_RESULT, executeToolCalls } from './execute-tool-calls.js';
import { appendMessage, closeOpenToolCalls } from './finish-turn.js';
import {
  prepareToolCalls,
  restorePreparedCalls,
  withStorableArguments,
  type PreparedCall,
} from './prepare-tool-calls.js';
import { isShutdown } from './shutdown.js';
import { isClaimLost } from '../../shared/errors.js';
import { joinSteers } from '../steer-inbox.js';
import { anyOf, maxStepsNote, noToolCalls, stepCountIs } from './stop-conditions.js';
import type { StreamModel, TurnContext, TurnOutcome, TurnStart } from './turn-types.js';

interface ToolBatch {
  batch: PreparedCall[];
  approval: ApprovalOutcome;
}

type ResumeStart = Extract<TurnStart, { kind: 'resume' }>;

/**
 * Streamed text of the current call, the last non-empty answer of this turn (what `turn-end` carries), and
 * the results of the tool batch in flight (kept when the turn stops mid-batch).
 */
interface TurnText extends PartialText {
  answer: string;
  toolResults: Array<ToolMessage | undefined>;
}

/** After a restart: put the stored assistant message back, wait for the click, apply it. */
async function resumeBatch(ctx: TurnContext, resume: ResumeStart): Promise<ToolBatch> {
  // Accepted: the turn's start is logged (no message: the question is in the history already).
  await ctx.host.accept?.(undefined);
  ctx.history.push(resume.stored.assistant);
  await ctx.host.replaceHistory(ctx.history);
  await ctx.folderReady;
  const batch = restorePreparedCalls(ctx, resume.stored.calls);
  await ctx.host.setState('attention');
  const decision = await untilAborted(resume.decision, ctx.signal);
  await ctx.host.setState('running');
  return { batch, approval: await applyDecision(ctx, batch, decision) };
}

/** One model call; returns the tool batch, or undefined when the model answered without tools. */
async function modelStep(ctx: TurnContext, partial: TurnText, steps: number): Promise<ToolBatch | undefined> {
  ctx.signal.throwIfAborted();
  // Steers sent while the turn worked join it here, at its next model call.
  const steers = ctx.steers?.take() ?? [];
  if (steers.length > 0) await joinSteers(ctx, steers);
  await ctx.host.setState('thinking');
  const { message: received, committed } = await callWithCompaction(ctx, partial);
  partial.text = '';
  if (received.content.trim()) partial.answer = received.content;
  const message = withStorableArguments(received);
  if (anyOf(noToolCalls)({ steps, last: message })) {
    ctx.history.push(message);
    // Answered: committed at the stop reason, before the final edit (callModel). A call whose answer was not complete
    // there (its tool calls were dropped as truncated) commits it now.
    if (!committed) await (ctx.host.answered ? ctx.host.answered(message) : ctx.host.persist(message));
    return undefined;
  }
  await appendMessage(ctx, message);
  // The text is in the stored message now: a restart during the tools must not add it a second time.
  ctx.host.recordPartial?.('');
  await ctx.host.setState('running');
  // Tools resolve paths against the working directory: a new workstream's folder may still be in the making.
  await ctx.folderReady;
  const batch = await prepareToolCalls(ctx, (received as Required<AssistantMessage>).toolCalls);
  return { batch, approval: await approveToolCalls(ctx, batch, message) };
}

function userSafeMessage(error: unknown, streamed: boolean): string {
  if (isDurableWriteError(error)) return durableWriteNote(error);
  const timedOut = timeoutNote(error, streamed);
  if (timedOut !== undefined) return timedOut;
  if (isContextLengthError(error)) {
    return "The conversation no longer fits the model's context window, even after compacting it. Start a new conversation or send a shorter message.";
  }
  if (error instanceof ProviderError) {
    const reason = error.data?.['reason'];
    if (typeof reason === 'string') return `The model is unreachable (${reason}). Please try again later.`;
    const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
    return `The model request failed${status}. Please try again later.`;
  }
  return 'Something went wrong while running the agent. The details are in the server logs.';
}

/** Cancel or failure: keep partial text, answer every open tool call, report. */
async function endAbnormally(ctx: TurnContext, error: unknown, partial: TurnText): Promise<TurnOutcome> {
  const streamed = partial.text.trim() !== '';
  const cancelled = ctx.signal.aborted || isAbortError(error);
  // At shutdown the history stays as stored, so a pending approval can resume after the restart.
  // The journal keeps the latest streamed text, and the next start settles the turn (ADR 0013).
  if (isShutdown(ctx.signal)) {
    if (partial.text) ctx.host.recordPartial?.(partial.text);
    return { text: partial.text || partial.answer, reason: 'cancelled' };
  }
  // The message's claim went to another instance before anything was shown (see `supersede`): nothing to repair.
  if (isClaimLost(error)) return { text: '', reason: 'superseded' };
  try {
    if (partial.text.trim()) {
      partial.answer = partial.text;
      await appendMessage(ctx, { role: 'assistant', content: partial.text });
    }
    await closeOpenToolCalls(
      ctx,
      cancelled ? CANCELLED_RESULT : 'Error: the turn failed before this tool ran.',
      partial.toolResults,
    );
  } catch (repairError) {
    ctx.logger.error({ wsId: ctx.wsId, err: describeError(repairError) }, 'could not persist the end of a turn');
  }
  if (cancelled) return { text: partial.answer, reason: 'cancelled' };
  ctx.logger.error({ wsId: ctx.wsId, turnId: ctx.turnId, err: error }, 'turn failed');
  ctx.host.emit({ type: 'error', message: userSafeMessage(error, streamed) });
  return { text: partial.answer, reason: 'error' };
}

/**
 * A model stream that holds back its first part until `saved` settles: the request goes out while the user's
 * message is being committed, and nothing of the answer reaches anyone before that commit is done.
 */
function answerAfter(streamModel: StreamModel, saved: Promise<void>): StreamModel {
  return async function* (provider, request, options) {
    let waited = false;
    for await (const part of streamModel(provider, request, options)) {
      if (!waited) {
        await saved;
        waited = true;
      }
      yield part;
    }
  };
}

/**
 * Runs one turn to its end. Never throws: cancellation and failures become the outcome's reason. A user turn's
 * message is appended to the history at once and committed concurrently with the first model request
 * (docs/decisions/0011-hot-path-writes.md); the turn never ends before that commit has settled.
 */
export function runTurn(ctx: TurnContext, start: TurnStart): Promise<TurnOutcome> {
  return traceTurn({ 'sandpiper.turn.kind': start.kind }, () => runUserOrResume(ctx, start));
}

async function runUserOrResume(ctx: TurnContext, start: TurnStart): Promise<TurnOutcome> {
  if (start.kind !== 'user') return runSteps(ctx, start);
  ctx.history.push(start.message);
  // Accepted: the message and the turn's start, in one write; nothing of the answer is shown before it committed.
  const saved = ctx.host.accept ? ctx.host.accept(start.message) : ctx.host.persist(start.message);
  // Handled from the start: the commit can fail while the model call runs, before anything awaits it.
  let lost = false;
  const logged = saved.catch((error: unknown) => {
    if (isClaimLost(error)) lost = true;
    else ctx.logger.error({ wsId: ctx.wsId, err: describeError(error) }, 'could not persist the user message');
  });
  const outcome = await runAccepted(ctx, saved, logged);
  return lost ? supersede(ctx, start) : outcome;
}

async function runAccepted(ctx: TurnContext, saved: Promise<void>, logged: Promise<void>): Promise<TurnOutcome> {
  try {
    const refusal = await ctx.host.budgetRefusal?.();
    if (refusal !== undefined) return await refuseTurn(ctx, refusal, saved);
    return await runSteps({ ...ctx, streamModel: answerAfter(ctx.streamModel, saved) }, undefined);
  } finally {
    await logged;
  }
}

/**
 * Another instance took the message's claim before it was stored (this process looked dead to it): this turn ends
 * without a word, the message leaves the history it was never stored in, and the other instance answers it.
 */
function supersede(ctx: TurnContext, start: Extract<TurnStart, { kind: 'user' }>): TurnOutcome {
  const index = ctx.history.lastIndexOf(start.message);
  if (index >= 0) ctx.history.splice(index, 1);
  ctx.logger.info({ wsId: ctx.wsId, turnId: ctx.turnId }, 'another instance took this message over; it answers it');
  return { text: '', reason: 'superseded' };
}

/**
 * A turn that may not call the model (a spent budget): the message stays stored, and the reason is the turn's answer
 * (shown in the thread, and in the history so the model later knows the message went unanswered).
 */
async function refuseTurn(ctx: TurnContext, note: string, saved: Promise<void>): Promise<TurnOutcome> {
  const partial: TurnText = { text: '', answer: '', toolResults: [] };
  try {
    await saved;
    const message: AssistantMessage = { role: 'assistant', content: note };
    ctx.history.push(message);
    await (ctx.host.answered ? ctx.host.answered(message) : ctx.host.persist(message));
    ctx.host.emit({ type: 'text-delta', text: note });
    ctx.host.emit({ type: 'model-call-end', finishReason: 'stop', answered: true });
    return { text: note, reason: 'done' };
  } catch (error) {
    return endAbnormally(ctx, error, partial);
  }
}

async function runSteps(ctx: TurnContext, start: ResumeStart | undefined): Promise<TurnOutcome> {
  const partial: TurnText = { text: '', answer: '', toolResults: [] };
  const stepLimit = stepCountIs(ctx.maxSteps);
  try {
    let resume = start;
    for (let steps = 0; ;) {
      const step = resume ? await resumeBatch(ctx, resume) : await modelStep(ctx, partial, steps);
      resume = undefined;
      if (step === undefined) return { text: partial.answer, reason: 'done' };
      ctx.signal.throwIfAborted();
      partial.toolResults = new Array<ToolMessage | undefined>(step.batch.length);
      const results = await executeToolCalls(ctx, step.batch, partial.toolResults);
      partial.toolResults = [];
      for (const result of results) await appendMessage(ctx, result);
      if (step.approval.feedback) await appendMessage(ctx, { role: 'user', content: step.approval.feedback });
      steps++;
      const last = ctx.history.findLast((message) => message.role === 'assistant') as AssistantMessage;
      if (stepLimit({ steps, last })) {
        ctx.host.emit({ type: 'text-delta', text: maxStepsNote(ctx.maxSteps) });
        return { text: partial.answer + maxStepsNote(ctx.maxSteps), reason: 'done' };
      }
    }
  } catch (error) {
    return endAbnormally(ctx, error, partial);
  }
}
