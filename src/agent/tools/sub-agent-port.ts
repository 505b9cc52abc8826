/** What the `task` and `plan` handlers get from the turn that runs them: sub-agent runs and plan reviews. */
import type { Message } from '../messages.js';

/** Which tools a sub-agent is given: `agent` = read-only (`agent: true`), `task` = `task_agent: true`. MCP tools are added to both. */
export type SubAgentToolSet = 'agent' | 'task';

export interface SubAgentRequest {
  /** `task` or `plan`: shown in progress lines and logs. */
  label: string;
  toolSet: SubAgentToolSet;
  /** The sub-agent's system message, built from the workstream's own (which `task` inherits and `plan` ignores). */
  systemPrompt: (workstreamSystemPrompt: string) => string;
  /** Transcript before the prompt (a previous plan, a first attempt being coached); not persisted. */
  transcript: readonly Message[];
  /** The user message the sub-agent acts on. */
  prompt: string;
}

export interface SubAgentResult {
  /** The final answer (after a synthesis call when the step limit was reached). */
  text: string;
  reason: 'done' | 'cancelled' | 'error';
  /** The whole transcript after the run (without the system message), for a follow-up run. */
  transcript: Message[];
  /** A user-safe description when `reason` is `error`. */
  error?: string;
}

export interface PlanReviewDecision {
  approved: boolean;
  /** What the owner asked to change (request changes), or null. */
  feedback: string | null;
}

export interface SubAgentPort {
  /** Runs a sub-agent through the workstream's turn loop; its tool calls follow the workstream's approval rules. */
  run(request: SubAgentRequest, signal: AbortSignal): Promise<SubAgentResult>;
  /** Shows the plan on a review card and waits for the owner's decision; rejects when the turn is cancelled. */
  reviewPlan(content: string, signal: AbortSignal): Promise<PlanReviewDecision>;
  /** True when nobody is asked (auto-approve on): plans are accepted without a review card. */
  readonly unattended: boolean;
  /** The conversation so far, read-only (the plan tool refines the latest earlier plan). */
  readonly history: readonly Message[];
}
