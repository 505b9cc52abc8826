/** Public surface of the agent core. */
export type { AgentEvent, AgentEventType, PreparedItem, TurnEndReason } from './events.js';
export type { AssistantMessage, ContentPart, Message, ToolCall, ToolMessage, Usage, UserMessage } from './messages.js';
export { contentText } from './messages.js';
export { approvalViewOf, cardItemsOf, SYSTEM_DECIDER, type ApprovalView } from './approval-record.js';
export { mayControl, type Person } from './ownership.js';
export type {
  AgentEventHandler,
  ApprovalDecisionInput,
  ApprovalVerdict,
  DecisionCheck,
  ResolveOutcome,
  SendOutcome,
  Workstream,
  WorkstreamInfo,
  WorkstreamManager,
  WorkstreamStatus,
} from './workstream-api.js';
export type { AgentSettings, AgentStores, WorkstreamManagerOptions } from './workstream-env.js';
export type { InterruptedTurn } from './interrupted-turn.js';
export { createWorkstreamManager, DefaultWorkstreamManager } from './workstream-manager.js';
export { buildSystemPrompt, type SystemPromptContext, type SystemPromptSection } from './system-prompt.js';
export type { StreamModel, TurnModel } from './turn/turn-types.js';
export { evaluateToolPolicies, globMatches, matchesAutoApprove, policyDenialMessage } from './policy/index.js';
export { invalidServerNameReason } from './mcp/mcp-server-spec.js';
