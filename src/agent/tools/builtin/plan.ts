/**
 * The `plan` tool: a read-only planning agent writes `.plan-<workstream id>.md` (refining the latest earlier plan), then
 * the owner reviews it on the plan card: approve, or request changes (up to 5 refinement rounds). Unattended
 * workstreams (auto-approve on) accept the plan without a review.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../../../shared/errors.js';
import { newHexId } from '../../../shared/ids.js';
import type { Message } from '../../messages.js';
import { PLAN_IDENTITY, planCoaching, planRefinement } from '../../subagents/agent-prompts.js';
import { PLAN_WARNING, validatePlan } from '../../subagents/plan-quality.js';
import type { SubAgentPort, SubAgentResult } from '../sub-agent-port.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

export const MAX_PLAN_REFINEMENTS = 5;

const promptOf = (args: Record<string, unknown>): string =>
  typeof args['prompt'] === 'string' ? args['prompt'].trim() : '';
const planFile = (context: ToolContext): string => `.plan-${context.workstreamId}.md`;

class PlanInterrupted extends Error {}

function prepare(args: Record<string, unknown>, context: ToolContext): ToolPreparation {
  const prompt = promptOf(args);
  if (prompt === '')
    return {
      header: '✗ plan: empty prompt',
      preview: '',
      needsApproval: false,
      approvalLabel: 'plan',
      error: 'Error: empty prompt',
    };
  if (context.subAgents === undefined) {
    return {
      header: '✗ plan: agents cannot spawn further agents',
      preview: '',
      needsApproval: false,
      approvalLabel: 'plan',
      error: 'Error: agents cannot spawn further agents',
    };
  }
  return {
    header: '⚙ plan (planning agent)',
    preview: prompt.slice(0, 300),
    needsApproval: true,
    approvalLabel: 'plan',
    untimed: true,
  };
}

/** The latest earlier `plan` call with a successful result, as a call/result pair (only that call, so the pair is valid). */
export function priorPlan(history: readonly Message[]): Message[] {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index];
    if (message?.role !== 'assistant') continue;
    for (const call of [...(message.toolCalls ?? [])].reverse()) {
      if (call.name !== 'plan') continue;
      const result = history.slice(index + 1).find((entry) => entry.role === 'tool' && entry.toolCallId === call.id);
      if (result?.role === 'tool' && result.isError !== true)
        return [{ role: 'assistant', content: '', toolCalls: [call] }, result];
    }
  }
  return [];
}

async function runPlanner(
  port: SubAgentPort,
  transcript: readonly Message[],
  prompt: string,
  signal: AbortSignal,
): Promise<SubAgentResult> {
  const result = await port.run(
    { label: 'plan', toolSet: 'agent', systemPrompt: () => PLAN_IDENTITY, transcript, prompt },
    signal,
  );
  if (result.reason === 'cancelled') {
    signal.throwIfAborted();
    throw new PlanInterrupted('plan interrupted');
  }
  if (result.reason === 'error') throw new Error(result.error ?? 'the planning agent failed');
  return result;
}

/** First draft with one coached retry when it fails the quality gate. */
async function draftPlan(port: SubAgentPort, goal: string, context: ToolContext): Promise<string> {
  const first = await runPlanner(port, priorPlan(port.history), goal, context.signal);
  if (validatePlan(first.text, goal).length === 0) return first.text.trim();
  context.logger.info(
    { wsId: context.workstreamId, issues: validatePlan(first.text, goal) },
    'plan failed the quality gate; retrying once',
  );
  const second = await runPlanner(port, first.transcript, planCoaching(first.text), context.signal);
  const text = second.text.trim() || first.text.trim();
  return validatePlan(text, goal).length === 0 ? text : `${PLAN_WARNING}${text}`;
}

async function refinePlan(
  port: SubAgentPort,
  goal: string,
  plan: string,
  feedback: string,
  signal: AbortSignal,
): Promise<string> {
  const callId = `plan_refine_${newHexId(4)}`;
  const transcript: Message[] = [
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: callId, name: 'plan', arguments: JSON.stringify({ prompt: goal }) }],
    },
    { role: 'tool', toolCallId: callId, name: 'plan', content: plan.replace(PLAN_WARNING, '') },
  ];
  const revised = await runPlanner(port, transcript, planRefinement(feedback), signal);
  return revised.text.trim() || plan;
}

async function savePlan(context: ToolContext, content: string): Promise<void> {
  try {
    await writeFile(path.join(context.cwd, planFile(context)), `${content}\n`, 'utf8');
  } catch (error) {
    context.logger.warn({ wsId: context.workstreamId, err: describeError(error) }, 'could not write the plan file');
  }
}

/** The review loop: returns the final plan and the note the model reads about the owner's decision. */
async function review(
  port: SubAgentPort,
  goal: string,
  draft: string,
  context: ToolContext,
): Promise<{ plan: string; note: string }> {
  let plan = draft;
  for (let round = 0; ; round++) {
    const decision = await port.reviewPlan(plan, context.signal);
    if (decision.approved) return { plan, note: 'The user approved this plan.' };
    const feedback = decision.feedback?.trim() ?? '';
    if (feedback === '')
      return { plan, note: 'The user rejected this plan. Do not implement it; ask the user what they want instead.' };
    if (round >= MAX_PLAN_REFINEMENTS) {
      return {
        plan,
        note: `The user still asked for changes after ${MAX_PLAN_REFINEMENTS} refinement rounds, which is the limit; this feedback is not applied yet: ${feedback}`,
      };
    }
    try {
      plan = await refinePlan(port, goal, plan, feedback, context.signal);
    } catch (error) {
      if (error instanceof PlanInterrupted) return { plan, note: '(plan refinement interrupted)' };
      context.signal.throwIfAborted();
      return { plan, note: `The plan could not be refined (${describeError(error)}). User feedback: ${feedback}` };
    }
    await savePlan(context, plan);
  }
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const port = context.subAgents;
  if (port === undefined) return { output: 'Error: agents cannot spawn further agents', isError: true };
  const goal = promptOf(args);
  let draft: string;
  try {
    draft = await draftPlan(port, goal, context);
  } catch (error) {
    if (error instanceof PlanInterrupted) return { output: '(plan interrupted by user)', isError: true };
    context.signal.throwIfAborted();
    return { output: `Plan error: ${describeError(error)}`, isError: true };
  }
  await savePlan(context, draft);
  const { plan, note } = port.unattended
    ? { plan: draft, note: 'Accepted without review (auto-approve is on).' }
    : await review(port, goal, draft, context);
  await savePlan(context, plan);
  return { output: `${plan}\n\n---\n${note}\n\n---\nPlan saved to \`${planFile(context)}\``, isError: false };
}

export const planHandler: ToolHandler = { name: 'plan', prepare, execute };
