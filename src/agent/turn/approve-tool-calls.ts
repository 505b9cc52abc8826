/** The approval step: tool policies, then auto-approve rules, otherwise ask the owner through a durable approval row. */
import { matchesAutoApprove } from '../policy/label-glob.js';
import { policyDenialMessage } from '../policy/evaluate-tool-policies.js';
import type { AssistantMessage } from '../messages.js';
import type { PreparedCall } from './prepare-tool-calls.js';
import type { StoredCall, TurnApprovalDecision, TurnContext } from './turn-types.js';

/** What the approval step hands to execution. */
export interface ApprovalOutcome {
  /** Text the user typed when approving; reaches the model after the results. */
  feedback: string | null;
  /** The approval row that was asked, when one was. */
  approvalId?: string;
}

/** Applies policies and auto-approve rules; calls still `ask` afterwards need the owner. */
export async function decideWithoutAsking(ctx: TurnContext, batch: PreparedCall[]): Promise<void> {
  const pending = batch.filter((call) => call.status === 'ask');
  if (pending.length === 0) return;
  const actions = await ctx.host.evaluatePolicies(pending.map((call) => call.item.approvalLabel));
  pending.forEach((call, index) => {
    const action = actions[index];
    if (action === 'deny') {
      const message = policyDenialMessage(call.item.approvalLabel);
      call.status = { output: message, isError: true };
      call.item = { ...call.item, needsApproval: false, error: message };
    } else if (action === 'allow') {
      call.status = 'run';
    }
  });
  const labels = ctx.autoApproveLabels();
  for (const call of batch) {
    if (call.status !== 'ask') continue;
    if (ctx.autoApproveAll || matchesAutoApprove(call.item.approvalLabel, labels)) call.status = 'run';
  }
  await applyGrants(ctx, batch);
}

/** Standing grants (ADR 0046) approve the calls they cover; read once per step, only when a call still asks. */
async function applyGrants(ctx: TurnContext, batch: PreparedCall[]): Promise<void> {
  const asking = batch.filter((call) => call.status === 'ask');
  if (asking.length === 0 || ctx.host.grantedCalls === undefined) return;
  const covered = await ctx.host.grantedCalls(
    asking.map((call) => ({
      label: call.item.approvalLabel,
      name: call.name,
      args: call.args,
      arguments: call.arguments,
      primaryKey: call.primaryKey,
    })),
  );
  asking.forEach((call, index) => {
    if (covered[index] === true) call.status = 'run';
  });
}

/** Marks the waiting calls according to the decision; records "always" labels. */
export async function applyDecision(
  ctx: TurnContext,
  batch: PreparedCall[],
  decision: TurnApprovalDecision,
): Promise<ApprovalOutcome> {
  const waiting = batch.filter((call) => call.status === 'ask');
  if (!decision.approved) {
    const output = decision.feedback ? `Denied by user: ${decision.feedback}` : 'Denied by user';
    for (const call of waiting) call.status = { output, isError: true };
    return { feedback: null, approvalId: decision.approvalId };
  }
  if (!(await ctx.host.claimExecution(decision.approvalId))) {
    ctx.logger.warn({ wsId: ctx.wsId, approvalId: decision.approvalId }, 'approval already executed elsewhere');
    for (const call of waiting)
      call.status = { output: 'Not run: this approval was already carried out.', isError: true };
    return { feedback: null, approvalId: decision.approvalId };
  }
  for (const call of waiting) call.status = 'run';
  if (decision.always) await rememberAlways(ctx, waiting, decision);
  return { feedback: decision.feedback || null, approvalId: decision.approvalId };
}

/** "Always": a conversation grant per label (revocable, listed) where the host keeps grants, else the workstream's set. */
async function rememberAlways(
  ctx: TurnContext,
  waiting: PreparedCall[],
  decision: TurnApprovalDecision,
): Promise<void> {
  const labels = [...new Set(waiting.map((call) => call.item.approvalLabel))];
  if (ctx.host.grantAlways === undefined) return ctx.host.addAutoApprove(labels);
  return ctx.host.grantAlways({ labels, approvalId: decision.approvalId, decidedBy: decision.decidedBy });
}

function toStored(call: PreparedCall): StoredCall {
  const stored: StoredCall = {
    callId: call.callId,
    name: call.name,
    arguments: call.arguments,
    args: call.args,
    item: call.item,
    status: call.status,
  };
  if (call.untimed === true) stored.untimed = true;
  return stored;
}

/** The whole approval step for a fresh batch: announce what is settled, ask for the rest, wait. */
export async function approveToolCalls(
  ctx: TurnContext,
  batch: PreparedCall[],
  assistant: AssistantMessage,
): Promise<ApprovalOutcome> {
  await decideWithoutAsking(ctx, batch);
  const settled = batch.filter((call) => call.status !== 'ask');
  const waiting = batch.filter((call) => call.status === 'ask');
  if (settled.length > 0) ctx.host.emit({ type: 'tool-calls', items: settled.map((call) => call.item) });
  if (waiting.length === 0) return { feedback: null };
  await ctx.host.setState('attention');
  const decision = await ctx.host.requestApproval(
    {
      turnId: ctx.turnId,
      items: waiting.map((call) => call.item),
      stored: { version: 1, calls: batch.map(toStored), assistant },
    },
    ctx.signal,
  );
  await ctx.host.setState('running');
  return applyDecision(ctx, batch, decision);
}
