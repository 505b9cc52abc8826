/** The collaborators every workstream of a manager shares: settings, stores, models, tools, waiters. */
import type { Config } from '../config/load-config.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import type { ApprovalWaiters } from './approval-waiters.js';
import type { TokenBudget } from './token-budget.js';
import type { ToolSearchSettings } from './search/tool-search.js';
import type { SystemPromptSection } from './system-prompt.js';
import type { ToolSource } from './tools/tool.js';
import type { StreamModel, TurnModel } from './turn/turn-types.js';
import type { TurnJournal } from './turn-journal.js';
import type { WorkstreamWrites } from './workstream-writes.js';
import type { LiveWorkstream } from './workstream.js';

/** The agent's configuration slice. */
export type AgentSettings = Config['agent'];

/** The stores the agent core uses. */
/** `grants` and `routes` (standing approval grants, ADR 0046) are optional: without them "Always" stays in the workstream. */
export type AgentStores = Pick<
  Stores,
  'workstreams' | 'conversations' | 'approvals' | 'policies' | 'users' | 'turnJournal'
> &
  Partial<Pick<Stores, 'grants' | 'routes'>>;

export interface WorkstreamManagerOptions {
  agent: AgentSettings;
  stores: AgentStores;
  /** The model behind an alias, or undefined when the alias is unknown. */
  resolveModel: (alias: string) => TurnModel | undefined;
  /** Alias used when a workstream names none (or an unknown one). */
  defaultModelAlias: string;
  toolSources: readonly ToolSource[];
  logger: Logger;
  /** Defaults to the provider's stream with retries. */
  streamModel?: StreamModel;
  /** Extra system-message sections (MCP catalogs, memories), evaluated before every model call. */
  systemPromptSections?: readonly SystemPromptSection[];
  /** Client-side tool search (`tools.search*`); default auto / 20 / 5. */
  toolSearch?: ToolSearchSettings;
  /** Clock for idle eviction (tests). */
  now?: () => number;
  /** Daily token budgets (`[budgets]`); absent = none. */
  budget?: TokenBudget;
}

/** What a live workstream gets from its manager. */
export interface WorkstreamEnv {
  agent: AgentSettings;
  stores: AgentStores;
  resolveModel: (alias: string) => TurnModel | undefined;
  defaultModelAlias: string;
  toolSources: readonly ToolSource[];
  logger: Logger;
  streamModel: StreamModel;
  systemPromptSections: readonly SystemPromptSection[];
  toolSearch: ToolSearchSettings;
  waiters: ApprovalWaiters;
  /** Write-behind of state, usage and activity time (flushed at shutdown). */
  writes: WorkstreamWrites;
  /** Write-behind of the turns in flight, so a restart can settle the ones it interrupted (ADR 0013). */
  journal: TurnJournal;
  now: () => number;
  /** Takes an evicted object that is used again back into the live set; returns the object to use. */
  readopt: (ws: LiveWorkstream) => LiveWorkstream;
  /** Daily token budgets (`[budgets]`); absent = none. */
  budget?: TokenBudget;
}
