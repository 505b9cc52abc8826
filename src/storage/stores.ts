/** The set of stores the application runs on, built once in main.ts from one knex instance. */
import type { AdminAuditStore } from './admin-audit-store.js';
import type { McpCredentialStore } from './mcp-credential-store.js';
import type { McpOAuthStateStore } from './mcp-oauth-state-store.js';
import type { ApprovalStore } from './approval-store.js';
import type { ClusterStatusStore } from './cluster-status-store.js';
import type { ConversationStore } from './conversation-store.js';
import type { ChangeFeed } from './link-changes.js';
import type { DataLifecycleStore } from './data-purge.js';
import type { GrantStore } from './grant-store.js';
import type { HandoffStore } from './handoff-store.js';
import type { InboundEventStore } from './inbound-event-store.js';
import type { McpServerStore } from './mcp-server-store.js';
import type { MemoryStore } from './memory-store.js';
import type { NotifyDeliveryStore } from './notify-delivery-store.js';
import type { NotifyOutboxStore } from './notify-outbox-store.js';
import type { PolicyStore } from './policy-store.js';
import type { PromptTemplateStore } from './prompt-template-store.js';
import type { RouteStore } from './route-store.js';
import type { ServiceStore } from './service-store.js';
import type { ShardLeaseStore } from './shard-lease-store.js';
import type { SlackInstallStore } from './slack-install-store.js';
import type { TurnJournalStore } from './turn-journal-store.js';
import type { UsageStore } from './usage-store.js';
import type { UserStore } from './user-store.js';
import type { WatchStore } from './watch-store.js';
import type { WorkstreamLeaseStore } from './workstream-lease-store.js';
import type { WorkstreamStore } from './workstream-store.js';

export interface Stores {
  users: UserStore;
  routes: RouteStore;
  services: ServiceStore;
  workstreams: WorkstreamStore;
  conversations: ConversationStore;
  approvals: ApprovalStore;
  policies: PolicyStore;
  /** Standing approvals with a scope, an argument glob and an expiry (ADR 0046). */
  grants: GrantStore;
  /** Removing a user's data and the retention purge (ADR 0046). */
  lifecycle: DataLifecycleStore;
  /** Every admin change, who made it and how it ended (ADR 0035). */
  adminAudit: AdminAuditStore;
  /** Tokens per day, conversation and model, with owner and channel (`sandpiper usage`, budgets). */
  usage: UsageStore;
  memories: MemoryStore;
  watches: WatchStore;
  promptTemplates: PromptTemplateStore;
  mcpServers: McpServerStore;
  /** Encrypted per-user OAuth tokens of MCP servers. */
  mcpCredentials: McpCredentialStore;
  /** Pending MCP OAuth authorizations (their `state`s), so any instance takes the callback. */
  mcpOAuthStates: McpOAuthStateStore;
  notifyDeliveries: NotifyDeliveryStore;
  notifyOutbox: NotifyOutboxStore;
  inboundEvents: InboundEventStore;
  turnJournal: TurnJournalStore;
  clusterStatus: ClusterStatusStore;
  /** Which instance runs a workstream (ADR 0021). */
  workstreamLeases: WorkstreamLeaseStore;
  /** Work handed to the lease holder (ADR 0021). */
  handoffs: HandoffStore;
  /** Discord shard leases of the instances sharing the database (ADR 0022). */
  shardLeases: ShardLeaseStore;
  /** Slack workspaces that installed the app (HTTP mode, slack.client_id); tokens encrypted by the caller. */
  slackInstalls: SlackInstallStore;
  /** When platform links change, here or in another process (SQLite only). */
  linkChanges?: ChangeFeed;
  /** Resolves once every write handed to the shared write batches so far has committed or failed (before closing). */
  settleWrites?: () => Promise<void>;
}
