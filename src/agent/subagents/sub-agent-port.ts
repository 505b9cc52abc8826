/**
 * Sub-agents (`task`, `plan`) through the workstream's own turn loop: a fresh transcript that is not persisted, a
 * narrowed tool set, the same approval rules (auto-approve labels, policies, cards asked of the owner), progress
 * events forwarded to the workstream, and the turn's cancel signal.
 */
import type { AgentEvent, PreparedItem } from '../events.js';
import type { Message } from '../messages.js';
import type { PlanReviewDecision, SubAgentPort, SubAgentRequest, SubAgentResult } from '../tools/sub-agent-port.js';
import { runTurn } from '../turn/run-turn.js';
import type { TurnContext, TurnHost } from '../turn/turn-types.js';
import { ScopedToolSource } from './scoped-tool-source.js';

/** Default model calls one sub-agent run may make before it is asked to answer with what it has. */
export const DEFAULT_SUB_AGENT_MAX_STEPS = 30;

const SYNTHESIS_REQUEST =
  'You have reached the limit of tool calls for this task. Do not call any more tools: answer now with what you have found and done so far, and say what is left.';

export interface SubAgentSettings {
  maxSteps: number;
}

/** The port one `task`/`plan` call gets: runs sub-agents under the parent turn and asks for plan reviews. */
export function createSubAgentPort(parent: TurnContext, callId: string, settings: SubAgentSettings): SubAgentPort {
  return {
    run: (request, signal) => runSubAgent(parent, callId, request, settings, signal),
    reviewPlan: (content, signal) => reviewPlan(parent, content, signal),
    unattended: parent.autoApproveAll || parent.host.requestPlanReview === undefined,
    history: parent.history,
  };
}

async function reviewPlan(parent: TurnContext, content: string, signal: AbortSignal): Promise<PlanReviewDecision> {
  const request = parent.host.requestPlanReview;
  if (request === undefined) return { approved: true, feedback: null };
  await parent.host.setState('attention');
  const decision = await request({ turnId: parent.turnId, content }, signal);
  await parent.host.setState('running');
  return { approved: decision.approved, feedback: decision.feedback };
}

async function runSubAgent(
  parent: TurnContext,
  callId: string,
  request: SubAgentRequest,
  settings: SubAgentSettings,
  signal: AbortSignal,
): Promise<SubAgentResult> {
  const errors: string[] = [];
  const history: Message[] = [...request.transcript];
  const toolSources = parent.toolSources.map((source) => new ScopedToolSource(source, request.toolSet));
  const base: TurnContext = {
    wsId: parent.wsId,
    turnId: parent.turnId,
    cwd: parent.cwd,
    history,
    model: parent.model,
    toolSources,
    streamModel: parent.streamModel,
    systemPrompt: async (promptSignal) => request.systemPrompt(await parent.systemPrompt(promptSignal)),
    autoApproveAll: parent.autoApproveAll,
    autoApproveLabels: parent.autoApproveLabels,
    maxSteps: settings.maxSteps,
    toolTimeoutMs: parent.toolTimeoutMs,
    readFiles: new Set(),
    logger: parent.logger,
    host: subAgentHost(parent.host, `${request.label}-${callId}`, request.label, errors),
    signal,
  };
  const outcome = await runTurn(base, { kind: 'user', message: { role: 'user', content: request.prompt } });
  let text = outcome.text;
  if (outcome.reason === 'done' && history.at(-1)?.role === 'tool') {
    // The step limit stopped it mid-work: one more call without tools, asking for an answer.
    const synthesis = await runTurn(
      { ...base, toolSources: [], maxSteps: 1 },
      { kind: 'user', message: { role: 'user', content: SYNTHESIS_REQUEST } },
    );
    if (synthesis.text.trim()) text = synthesis.text;
  }
  // A sub-agent's messages carry no inbound claim, so it is never superseded; were it, it simply stopped.
  const reason = outcome.reason === 'superseded' ? 'cancelled' : outcome.reason;
  const result: SubAgentResult = { text, reason, transcript: history };
  if (errors.length > 0) result.error = errors.join(' ');
  return result;
}

/** Event types a parent thread shows for a sub-agent: its tool calls, their approvals and results. */
const FORWARDED: ReadonlySet<AgentEvent['type']> = new Set([
  'tool-calls',
  'approval-request',
  'approval-resolved',
  'tool-output-chunk',
  'tool-result',
]);

/**
 * The parent's host with persistence switched off (a sub-agent's transcript is its own) and events relabelled: call
 * ids get a prefix (so they never collide with the parent's) and headers name the sub-agent (`[task] ⚙ bash: ls`).
 */
function subAgentHost(parent: TurnHost, prefix: string, label: string, errors: string[]): TurnHost {
  const item = (entry: PreparedItem): PreparedItem => ({
    ...entry,
    callId: `${prefix}-${entry.callId}`,
    header: `[${label}] ${entry.header}`,
  });
  const relabel = (event: AgentEvent): AgentEvent => {
    switch (event.type) {
      case 'tool-calls':
        return { ...event, items: event.items.map(item) };
      case 'approval-request':
        return { ...event, items: event.items.map(item) };
      case 'tool-output-chunk':
      case 'tool-result':
        return { ...event, callId: `${prefix}-${event.callId}` };
      default:
        return event;
    }
  };
  return {
    emit: (event) => {
      if (event.type === 'error') errors.push(event.message);
      if (FORWARDED.has(event.type)) parent.emit(relabel(event));
    },
    persist: () => Promise.resolve(),
    replaceHistory: () => Promise.resolve(),
    settled: () => Promise.resolve(),
    // Only waiting for the owner is worth showing; the parent turn stays "running" while its sub-agent thinks.
    setState: (state) => (state === 'attention' || state === 'running' ? parent.setState(state) : Promise.resolve()),
    addUsage: (usage, model) => parent.addUsage(usage, model),
    evaluatePolicies: (labels) => parent.evaluatePolicies(labels),
    // Marked as a sub-agent's request: it cannot resume after a restart (the sub-agent is gone), so it is never resumed.
    requestApproval: (input, signal) =>
      parent.requestApproval(
        { ...input, items: input.items.map(item), stored: { ...input.stored, subAgent: label } },
        signal,
      ),
    // A sub-agent's bash asks the same owner about the network (the card says which tool asks).
    ...(parent.requestNetworkApproval === undefined
      ? {}
      : { requestNetworkApproval: parent.requestNetworkApproval.bind(parent) }),
    ...(parent.evaluateNetworkPolicy === undefined
      ? {}
      : { evaluateNetworkPolicy: parent.evaluateNetworkPolicy.bind(parent) }),
    addAutoApprove: (labels) => parent.addAutoApprove(labels),
    ...(parent.grantedCalls === undefined ? {} : { grantedCalls: parent.grantedCalls.bind(parent) }),
    ...(parent.grantAlways === undefined ? {} : { grantAlways: parent.grantAlways.bind(parent) }),
    claimExecution: (approvalId) => parent.claimExecution(approvalId),
  };
}
