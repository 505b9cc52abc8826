/** The turn loop: call the model, prepare/approve/execute its tool calls, append results, until it answers. */
import { traceTurn } from '../agent-telemetry.js';
import { isAbortError, untilAborted } from '../../shared/abort.js';
import { describeError, ProviderError } from '../../shared/errors.js';
import type { AssistantMessage, ToolMessage } from '../messages.js';
import { applyDecision, approveToolCalls, type ApprovalOutcome } from './approve-tool-calls.js';
import type { PartialText } from './call-model.js';
import { callWithCompaction, isContextLengthError } from './call-with-compaction.js';
import { CANCELLED_RESULT, executeToolCalls } from './execute-tool-calls.js';
import { appendMessage, closeOpenToolCalls } from './finish-turn.js';
import { prepareToolCalls, restorePreparedCalls, withStorableArguments, type PreparedCall } from './prepare-tool-calls.js';
import { isShutdown } from './shutdown.js';
import { anyOf, maxStepsNote, noToolCalls, stepCountIs } from './stop-conditions.js';
import type { TurnContext, TurnOutcome, TurnStart } from './turn-types.js';

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
  ctx.history.push(resume.stored.assistant);
  await ctx.host.replaceHistory(ctx.history);
  const batch = restorePreparedCalls(ctx, resume.stored.calls);
  await ctx.host.setState('attention');
  const decision = await untilAborted(resume.decision, ctx.signal);
  await ctx.host.setState('running');
  return { batch, approval: await applyDecision(ctx, batch, decision) };
}

/** One model call; returns the tool batch, or undefined when the model answered without tools. */
async function modelStep(ctx: TurnContext, partial: TurnText, steps: number): Promise<ToolBatch | undefined> {
  ctx.signal.throwIfAborted();
  await ctx.host.setState('thinking');
  const { message: received } = await callWithCompaction(ctx, partial);
  partial.text = '';
  if (received.content.trim()) partial.answer = received.content;
  const message = withStorableArguments(received);
  await appendMessage(ctx, message);
  if (anyOf(noToolCalls)({ steps, last: message })) return undefined;
  await ctx.host.setState('running');
  const batch = await prepareToolCalls(ctx, (received as Required<AssistantMessage>).toolCalls);
  return { batch, approval: await approveToolCalls(ctx, batch, message) };
}

function userSafeMessage(error: unknown): string {
  if (isContextLengthError(error)) {
    return 'The conversation no longer fits the model\'s context window, even after compacting it. Start a new conversation or send a shorter message.';
  }
  if (error instanceof ProviderError) {
    const status = error.status === undefined ? '' : ` (HTTP ${error.status})`;
    return `The model request failed${status}. Please try again later.`;
  }
  return 'Something went wrong while running the agent. The details are in the server logs.';
}

/** Cancel or failure: keep partial text, answer every open tool call, report. */
async function endAbnormally(ctx: TurnContext, error: unknown, partial: TurnText): Promise<TurnOutcome> {
  const cancelled = ctx.signal.aborted || isAbortError(error);
  // At shutdown the history stays as stored, so a pending approval can resume after the restart.
  if (isShutdown(ctx.signal)) return { text: partial.text || partial.answer, reason: 'cancelled' };
  try {
    if (partial.text.trim()) {
      partial.answer = partial.text;
      await appendMessage(ctx, { role: 'assistant', content: partial.text });
    }
    await closeOpenToolCalls(ctx, cancelled ? CANCELLED_RESULT : 'Error: the turn failed before this tool ran.', partial.toolResults);
  } catch (repairError) {
    ctx.logger.error({ wsId: ctx.wsId, err: describeError(repairError) }, 'could not persist the end of a turn');
  }
  if (cancelled) return { text: partial.answer, reason: 'cancelled' };
  ctx.logger.error({ wsId: ctx.wsId, turnId: ctx.turnId, err: error }, 'turn failed');
  ctx.host.emit({ type: 'error', message: userSafeMessage(error) });
  return { text: partial.answer, reason: 'error' };
}

/** Runs one turn to its end. Never throws: cancellation and failures become the outcome's reason. */
export function runTurn(ctx: TurnContext, start: TurnStart): Promise<TurnOutcome> {
  return traceTurn({ 'sandpiper.turn.kind': start.kind }, () => runTurnSteps(ctx, start));
}

async function runTurnSteps(ctx: TurnContext, start: TurnStart): Promise<TurnOutcome> {
  const partial: TurnText = { text: '', answer: '', toolResults: [] };
  const stepLimit = stepCountIs(ctx.maxSteps);
  try {
    if (start.kind === 'user') await appendMessage(ctx, start.message);
    let resume = start.kind === 'resume' ? start : undefined;
    for (let steps = 0; ; ) {
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
