/** The types one turn runs with: the model, the tools, the limits, and the host callbacks (events, persistence, approvals). */
import type { Logger } from '../../shared/logger.js';
import type { PolicyAction } from '../../storage/policy-store.js';
import type { AgentEvent, PreparedItem, TurnEndReason } from '../events.js';
import type { GrantedCall } from '../policy/grant-match.js';
import type { AssistantMessage, Message, Usage, UserMessage } from '../messages.js';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../providers/model-provider.js';
import type { NativeTools } from '../providers/native-tools.js';
import type { SubAgentPort } from '../tools/sub-agent-port.js';
import type { ToolDefinition, ToolSource } from '../tools/tool.js';
import type { WorkstreamStatus } from '../workstream-api.js';

/** The resolved model of a workstream. */
export interface TurnModel {
  provider: ModelProvider;
  /** Model name sent to the API. */
  model: string;
  contextWindow: number;
  maxTokens: number;
  temperature?: number;
  supportsVision: boolean;
  /** Provider-native tool search and web search (src/agent/providers/native-tools.ts); unset = the fallbacks. */
  native?: NativeTools;
  /** The configured alias (`[models.<alias>]`), for notes. */
  alias?: string;
  /** `models.<alias>.fallback`: the model that answers when this one is unreachable (itself without a fallback). */
  fallback?: () => TurnModel | undefined;
}

/** Streams one model call with retries; `onRetry` reports each scheduled retry. */
export type StreamModel = (
  provider: ModelProvider,
  request: ModelRequest,
  options: { signal: AbortSignal; onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void },
) => AsyncIterable<ModelStreamPart>;

/** The owner's (or an admin's) decision on an approval request. */
export interface TurnApprovalDecision {
  approvalId: string;
  approved: boolean;
  always: boolean;
  feedback: string | null;
  decidedBy: string;
}

/** A tool call as stored in an approval row, enough to run it after a restart. */
export interface StoredCall {
  callId: string;
  name: string;
  /** Raw JSON text as the model sent it. */
  arguments: string;
  /** Parsed arguments (undefined when parsing failed; then `item.error` is set). */
  args: Record<string, unknown> | undefined;
  item: PreparedItem;
  /** `ask` = waits for the decision; `run` = approved without asking; otherwise the fixed result text. */
  status: 'ask' | 'run' | { output: string; isError: boolean };
  /** Runs without the per-call timeout (sub-agents, plan reviews). */
  untimed?: boolean;
}

/** The JSON stored in `approvals.items`. */
export interface StoredApprovalItems {
  version: 1;
  calls: StoredCall[];
  assistant: AssistantMessage;
  /** Set when a sub-agent asked (`task`, `plan`): such a request never resumes after a restart. */
  subAgent?: string;
}

export interface ApprovalRequestInput {
  turnId: string;
  /** Items shown on the card (the ones that wait for the decision). */
  items: PreparedItem[];
  stored: StoredApprovalItems;
}

/** A sandboxed process of one tool call asks to reach `host:port` (`tools.network = "ask"`). */
export interface NetworkApprovalInput {
  turnId: string;
  callId: string;
  tool: string;
  host: string;
  port: number;
  /** `network:host:port`: what "Always here" remembers and `network:` tool policies match. */
  label: string;
}

/** What a turn needs from the workstream around it. The loop knows no storage and no channels. */
export interface TurnHost {
  /** Emits an event to the workstream's subscribers (in order). */
  emit(event: AgentEvent): void;
  /** Persists one message as it is appended to the history. */
  persist(message: Message): Promise<void>;
  /**
   * The *accepted* commit point (docs/design/durability.md): the user's message (none for a turn resumed from its
   * approval) and the turn's start, in one write. Rejects with a `DurableWriteError`. Hosts without a turn log (a
   * sub-agent's) leave it out: the message is then persisted as any other.
   */
  accept?(message: Message | undefined): Promise<void>;
  /**
   * The *answered* commit point: the complete answer, committed at the model's stop reason and before the final edit,
   * so a restart or a takeover never answers the turn again. Rejects with a `DurableWriteError`.
   */
  answered?(message: Message): Promise<void>;
  /** Replaces the persisted history (compaction, resume after restart). */
  replaceHistory(messages: readonly Message[]): Promise<void>;
  /** Resolves when every history write started so far has settled (they run in call order). */
  settled(): Promise<void>;
  /** The text the current model call has streamed so far, journalled (batched) so a restart keeps it; '' resets it. */
  recordPartial?(text: string): void;
  setState(state: WorkstreamStatus): Promise<void>;
  /** One model call's usage; `model` is the model actually called (usage per model and day). */
  addUsage(usage: Usage, model?: string): Promise<void>;
  /** Policy actions for approval labels (undefined = no matching policy); fails open. */
  evaluatePolicies(labels: readonly string[]): Promise<Array<PolicyAction | undefined>>;
  /** Writes the approval row first, emits `approval-request`, then waits for the decision; rejects on abort. */
  requestApproval(input: ApprovalRequestInput, signal: AbortSignal): Promise<TurnApprovalDecision>;
  /** Writes a `plan` approval row, emits `plan-review`, waits for the owner's decision; rejects on abort. */
  requestPlanReview?(input: { turnId: string; content: string }, signal: AbortSignal): Promise<TurnApprovalDecision>;
  /** Writes a `network` approval row, emits its card, waits for the owner's decision; rejects on abort. Absent = no cards. */
  requestNetworkApproval?(input: NetworkApprovalInput, signal: AbortSignal): Promise<TurnApprovalDecision>;
  /** The action of the first enabled `network:…` tool policy matching the label (other patterns never apply); fails closed to `ask`. */
  evaluateNetworkPolicy?(label: string): Promise<PolicyAction | undefined>;
  /** Adds labels to the workstream's persisted auto-approve set ("always"). */
  addAutoApprove(labels: readonly string[]): Promise<void>;
  /** Which calls a standing grant in force here covers (ADR 0046); absent = none. A failed read covers none (fails closed). */
  grantedCalls?(calls: readonly GrantedCall[]): Promise<boolean[]>;
  /** "Always" on a tool card: a conversation-scoped grant per label (ADR 0046); absent = `addAutoApprove`. */
  grantAlways?(input: { labels: readonly string[]; approvalId: string; decidedBy: string }): Promise<void>;
  /** Why a new turn may not call the model (a spent token budget), or undefined; absent = no budget. */
  budgetRefusal?(): Promise<string | undefined>;
  /** Claims an approved row for execution; true for exactly one caller. */
  claimExecution(approvalId: string): Promise<boolean>;
  /**
   * A steer joins the history before a model call: the message and the removal of its waiting row (`steerId`) in one
   * write, ordered after the turn's other writes. Rejects with a `DurableWriteError`. Absent = `persist`.
   */
  joinSteer?(message: UserMessage, steerId: string): Promise<void>;
}

/** The workstream's tool search: narrows each request's tools and serves `tool_search` (see search/workstream-tool-search.ts). */
export interface TurnToolSearch extends ToolSource {
  /**
   * The tools a request carries, whether client-side search (and its system hint) is active, and with `native` (a model
   * with provider-side tool search) the names to send with deferred loading.
   */
  select(
    all: readonly ToolDefinition[],
    options?: { native?: boolean },
  ): { tools: ToolDefinition[]; active: boolean; deferred?: string[] };
  /** A called deferred tool becomes visible for the rest of the conversation. */
  noteCalled(name: string, all: readonly ToolDefinition[]): void;
}

/** Everything one turn runs with. `history` is the workstream's live history and is mutated in place. */
export interface TurnContext {
  wsId: string;
  turnId: string;
  cwd: string;
  /** Settles once `cwd` exists (a new workstream's folder is made in the background); tool calls wait for it. */
  folderReady?: Promise<void>;
  history: Message[];
  /** The turn's model; replaced by its fallback for the rest of the turn when unreachable (model-fallback.ts). */
  model: TurnModel;
  toolSources: readonly ToolSource[];
  /** Tool search of the workstream; absent = every tool is sent. */
  toolSearch?: TurnToolSearch;
  streamModel: StreamModel;
  /** The full system message for this call. */
  systemPrompt: (signal: AbortSignal) => Promise<string>;
  autoApproveAll: boolean;
  /** Configured labels plus the workstream's "always" set. */
  autoApproveLabels: () => readonly string[];
  maxSteps: number;
  toolTimeoutMs: number;
  readFiles: Set<string>;
  logger: Logger;
  host: TurnHost;
  signal: AbortSignal;
  /** Sub-agents for one call of `task`/`plan`; absent inside sub-agents (they cannot spawn further agents). */
  subAgents?: (ctx: TurnContext, callId: string) => SubAgentPort;
  /** Steers sent to the running turn, read before each model call (src/agent/steer-inbox.ts); absent in sub-agents. */
  steers?: { take(): Array<{ id: string; content: string }> };
}

/** How a turn starts: a new user message, or a batch that waited for an approval across a restart. */
export type TurnStart =
  | { kind: 'user'; message: Message }
  | { kind: 'resume'; approvalId: string; stored: StoredApprovalItems; decision: Promise<TurnApprovalDecision> };

export interface TurnOutcome {
  text: string;
  reason: TurnEndReason;
}
