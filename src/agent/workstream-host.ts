/** The TurnHost of a live workstream: persistence, state, usage, policies and durable approvals through the stores. */
import { traceApprovalWait } from './agent-telemetry.js';
import { grantHostMethods } from './approval-grants.js';
import { untilAborted } from '../shared/abort.js';
import { describeError } from '../shared/errors.js';
import { newHexId } from '../shared/ids.js';
import { encodeApprovalItems, encodeNetworkItems } from './approval-record.js';
import type { Message, Usage } from './messages.js';
import type { InboundClaim } from '../storage/inbound-event-store.js';
import { evaluateToolPolicies } from './policy/evaluate-tool-policies.js';
import { DurableWriteError } from './turn/durable-write.js';
import { isShutdown } from './turn/shutdown.js';
import type {
  ApprovalRequestInput,
  NetworkApprovalInput,
  TurnApprovalDecision,
  TurnContext,
  TurnHost,
  TurnModel,
} from './turn/turn-types.js';
import { createSubAgentPort } from './subagents/sub-agent-port.js';
import type { PolicyAction } from '../storage/policy-store.js';
import type { LiveWorkstream } from './workstream.js';
import type { WorkstreamStatus } from './workstream-api.js';
import type { WorkstreamEnv } from './workstream-env.js';

/** A store write of the turn: its failure becomes a `DurableWriteError` naming what was lost (the turn ends with a note). */
async function durably(what: string, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    throw new DurableWriteError(what, error);
  }
}

/** What the turn's log entry records at its *accepted* write. */
export interface TurnLogEntry {
  /** The turn resumes one a restart interrupted (it is never resumed again). */
  resumed: boolean;
  /** Its message was stored as waiting: that row goes in the same write. */
  waited: boolean;
  /** The message's inbound ledger row, not written yet: it goes in the same write. */
  receipt?: InboundClaim;
}

/**
 * `log`: what the turn's *accepted* write records (see TurnLogEntry). The
 * turn's durable writes (its commit points and history appends) run one after another in call order; a write that
 * fails rejects its caller and every write of the turn after it, so the turn ends (with a note) and nothing later is
 * stored over a gap.
 */
export function createTurnHost(
  ws: LiveWorkstream,
  env: WorkstreamEnv,
  turnId: string,
  log: TurnLogEntry = { resumed: false, waited: false },
): TurnHost {
  const { stores } = env;
  const wsId = ws.wsId;
  const ordered = writeChain(ws.stored);
  return {
    emit: (event) => ws.emit(event),
    persist: (message: Message) =>
      ordered(async () => {
        // The activity time goes with the turn's closing state change (one UPDATE, WorkstreamWrites.touch).
        env.writes.touch(wsId);
        await durably('a message of this turn', () => stores.conversations.append(wsId, message));
      }),
    accept: (message) =>
      ordered(async () => {
        if (message !== undefined) env.writes.touch(wsId);
        const begin = { kind: 'begin', turnId, wsId, ...log } as const;
        await durably('your message', () =>
          stores.turnJournal.apply([message === undefined ? begin : { ...begin, message }]),
        );
      }),
    answered: (message: Message) =>
      ordered(async () => {
        await durably('the answer', () => stores.conversations.append(wsId, message));
      }),
    // A steer's history row and the removal of its waiting row (ADR 0050); the turn's state change touches the row.
    joinSteer: (message, steerId) =>
      ordered(() =>
        durably('your steer', () => stores.turnJournal.apply([{ kind: 'steer', turnId: steerId, wsId, message }])),
      ),
    replaceHistory: (messages) =>
      ordered(async () => {
        await durably('the compacted history', () => stores.conversations.replace(wsId, messages));
      }),
    // The turn has reported a failed write (its note in the thread); the next turn starts on what is stored.
    settled: () => ordered.settled(),
    recordPartial: (text: string) => env.journal.partial(wsId, turnId, text),
    setState: (state: WorkstreamStatus) => ws.setState(state),
    addUsage: usageRecorder(ws, env),
    evaluatePolicies: (labels) => evaluateStoredPolicies(env, wsId, labels),
    requestApproval: (input, signal) => requestApproval(ws, env, input, signal),
    requestPlanReview: (input, signal) => requestPlanReview(ws, env, input, signal),
    requestNetworkApproval: (input, signal) => requestNetworkApproval(ws, env, input, signal),
    evaluateNetworkPolicy: (label) => evaluateNetworkPolicy(env, wsId, label),
    addAutoApprove: (labels) => ws.addAutoApprove(labels),
    ...grantHostMethods(env, ws),
    claimExecution: (approvalId) => stores.approvals.claimExecution(approvalId),
    ...(env.budget === undefined ? {} : { budgetRefusal: () => budgetRefusal(env, ws) }),
  };
}

/** The turn's token use, handed to the write-behind; a turn counts once per model it called (usage_daily.turns). */
function usageRecorder(ws: LiveWorkstream, env: WorkstreamEnv): TurnHost['addUsage'] {
  const modelsCalled = new Set<string>();
  return (usage: Usage, model?: string) => {
    const called = model ?? ws.conversation.model()?.model ?? 'unknown';
    const detail = {
      model: called,
      newTurn: !modelsCalled.has(called),
      ...(usage.cachedTokens === undefined ? {} : { cachedTokens: usage.cachedTokens }),
    };
    modelsCalled.add(called);
    env.writes.addUsage(ws.wsId, usage.inputTokens, usage.outputTokens, detail);
    return Promise.resolve();
  };
}

/** The stored tool policies for `labels`, highest priority first; a failed read leaves every label undecided. */
async function evaluateStoredPolicies(
  env: WorkstreamEnv,
  wsId: string,
  labels: Parameters<TurnHost['evaluatePolicies']>[0],
): ReturnType<TurnHost['evaluatePolicies']> {
  try {
    const policies = [...(await env.stores.policies.list())].sort((a, b) => b.priority - a.priority);
    return evaluateToolPolicies(policies, labels);
  } catch (error) {
    env.logger.error({ wsId, err: describeError(error) }, 'evaluating tool policies failed');
    return labels.map(() => undefined);
  }
}

/** The owner's budget against today's usage, the usage handed to the write-behind included; a failed read refuses (fails closed). */
async function budgetRefusal(env: WorkstreamEnv, ws: LiveWorkstream): Promise<string | undefined> {
  try {
    await env.writes.flush();
    return await env.budget?.({ userId: ws.ownerUserId, wsId: ws.wsId });
  } catch (error) {
    env.logger.error({ wsId: ws.wsId, err: describeError(error) }, 'checking the token budget failed');
    return 'The token budget could not be checked, so this message was not sent to the model. Please try again in a moment.';
  }
}

/** What a turn of the workstream runs with: its history and conversation state, the model, the host, the limits. */
export function createTurnContext(
  ws: LiveWorkstream,
  env: WorkstreamEnv,
  turn: { turnId: string; model: TurnModel; signal: AbortSignal; log: TurnLogEntry },
): TurnContext {
  const { turnId, model, signal, log } = turn;
  const conversation = ws.conversation;
  return {
    wsId: ws.wsId,
    turnId,
    cwd: ws.cwd,
    folderReady: ws.folder,
    history: ws.history,
    model,
    toolSources: env.toolSources,
    toolSearch: conversation.toolSearch,
    streamModel: env.streamModel,
    systemPrompt: (promptSignal) => conversation.systemPrompt(promptSignal),
    autoApproveAll: env.agent.auto_approve,
    autoApproveLabels: () => conversation.autoApproveLabels(),
    maxSteps: env.agent.max_steps,
    toolTimeoutMs: env.agent.tool_timeout_seconds * 1000,
    readFiles: conversation.readFiles,
    logger: env.logger,
    host: createTurnHost(ws, env, turnId, log),
    signal,
    steers: ws.steers,
    subAgents: (parent, callId) => createSubAgentPort(parent, callId, { maxSteps: env.agent.sub_agent_max_steps }),
  };
}

/** Only `network:…` patterns apply to a destination (an allow-all `*` opens no network); a failure asks (fails closed). */
async function evaluateNetworkPolicy(
  env: WorkstreamEnv,
  wsId: string,
  label: string,
): Promise<PolicyAction | undefined> {
  try {
    const policies = [...(await env.stores.policies.list())]
      .filter((policy) => policy.toolPattern.startsWith('network:'))
      .sort((a, b) => b.priority - a.priority);
    return evaluateToolPolicies(policies, [label])[0];
  } catch (error) {
    env.logger.error({ wsId, err: describeError(error) }, 'evaluating network policies failed');
    return 'ask';
  }
}

/**
 * The turn's durable writes, one after another in call order, also when a caller does not await one (the user's
 * message commits while the model request is in flight), so a compaction's replace never overtakes an append. A new
 * workstream's row may still be committing (`first`): every write of the workstream comes after it.
 */
function writeChain(
  first: Promise<void>,
): ((write: () => Promise<void>) => Promise<void>) & { settled(): Promise<void> } {
  let chain = first;
  const ordered = (write: () => Promise<void>): Promise<void> => (chain = chain.then(write));
  // The turn has reported a failed write (its note in the thread); the next turn starts on what is stored.
  const settledAnyway = (): void => undefined;
  return Object.assign(ordered, { settled: () => chain.then(settledAnyway, settledAnyway) });
}

/** Row first, then the event, then the wait. On cancel the row is marked cancelled. */
async function requestApproval(
  ws: LiveWorkstream,
  env: WorkstreamEnv,
  input: ApprovalRequestInput,
  signal: AbortSignal,
): Promise<TurnApprovalDecision> {
  signal.throwIfAborted();
  const approvalId = newHexId();
  await env.stores.approvals.create({
    approvalId,
    wsId: ws.wsId,
    turnId: input.turnId,
    kind: 'tools',
    ownerUserId: ws.ownerUserId,
    items: encodeApprovalItems(input.stored),
  });
  const decision = ws.waitForDecision(approvalId, undefined);
  ws.emit({ type: 'approval-request', approvalId, items: input.items, ownerUserId: ws.ownerUserId });
  return awaitDecision(ws, env, approvalId, decision, signal);
}

/**
 * A plan review is an approval row of kind `plan` (the same durable ledger, ownership checks and cards). It does not
 * resume after a restart: the planning agent that waited for it is gone, so a late click is answered as stale.
 */
async function requestPlanReview(
  ws: LiveWorkstream,
  env: WorkstreamEnv,
  input: { turnId: string; content: string },
  signal: AbortSignal,
): Promise<TurnApprovalDecision> {
  signal.throwIfAborted();
  const approvalId = newHexId();
  await env.stores.approvals.create({
    approvalId,
    wsId: ws.wsId,
    turnId: input.turnId,
    kind: 'plan',
    ownerUserId: ws.ownerUserId,
    items: { version: 1, plan: input.content },
  });
  const decision = ws.waitForDecision(approvalId, undefined);
  ws.emit({ type: 'plan-review', approvalId, content: input.content });
  return awaitDecision(ws, env, approvalId, decision, signal);
}

/**
 * A sandboxed process asks to reach a host: a `network` row (the same durable ledger, ownership checks and cards), then
 * its card. Like a plan review it does not resume after a restart (the process that waited is gone).
 */
async function requestNetworkApproval(
  ws: LiveWorkstream,
  env: WorkstreamEnv,
  input: NetworkApprovalInput,
  signal: AbortSignal,
): Promise<TurnApprovalDecision> {
  signal.throwIfAborted();
  const approvalId = newHexId();
  const shown = input.host.includes(':') ? `[${input.host}]:${input.port}` : `${input.host}:${input.port}`;
  const item = {
    callId: input.callId,
    name: input.tool,
    approvalLabel: input.label,
    header: `${input.tool} wants to reach ${shown}`,
    preview: '',
    needsApproval: true,
  };
  const items = encodeNetworkItems({
    version: 1,
    network: { tool: input.tool, host: input.host, port: input.port, label: input.label },
    item,
  });
  await env.stores.approvals.create({
    approvalId,
    wsId: ws.wsId,
    turnId: input.turnId,
    kind: 'network',
    ownerUserId: ws.ownerUserId,
    items,
  });
  const decision = ws.waitForDecision(approvalId, undefined);
  ws.emit({ type: 'approval-request', approvalId, items: [item], ownerUserId: ws.ownerUserId, kind: 'network' });
  return awaitDecision(ws, env, approvalId, decision, signal);
}

async function awaitDecision(
  ws: LiveWorkstream,
  env: WorkstreamEnv,
  approvalId: string,
  decision: Promise<TurnApprovalDecision>,
  signal: AbortSignal,
): Promise<TurnApprovalDecision> {
  try {
    return await traceApprovalWait(approvalId, () => untilAborted(decision, signal));
  } catch (error) {
    const waited = env.waiters.has(approvalId);
    env.waiters.drop(approvalId);
    if (signal.aborted && !isShutdown(signal)) {
      await env.stores.approvals.cancelPending(ws.wsId).catch((cancelError: unknown) => {
        env.logger.error({ wsId: ws.wsId, err: describeError(cancelError) }, 'cancelling a pending approval failed');
      });
      // Without this the card keeps live buttons for a request nobody waits for any more.
      if (waited) ws.emitApprovalCancelled(approvalId);
    }
    throw error;
  }
}
