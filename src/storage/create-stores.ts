/** Builds the Stores bundle from one knex instance. */
import { KnexElicitationFormStore } from './elicitation-form-store.js';
import { KnexIdentifySlotStore } from './identify-slot-store.js';
import type { Knex } from 'knex';
import { BatchedInboundClaims } from './batched-inbound-claims.js';
import { CachedMemoryCounts } from './cached-memory-counts.js';
import { LinkChanges } from './link-changes.js';
import { KnexAdminAuditStore } from './knex-admin-audit-store.js';
import { KnexApprovalStore } from './knex-approval-store.js';
import { KnexClusterStatusStore } from './knex-cluster-status-store.js';
import { KnexConversationStore } from './knex-conversation-store.js';
import { KnexDataLifecycle } from './data-purge.js';
import { KnexGrantStore } from './knex-grant-store.js';
import { KnexHandoffStore } from './knex-handoff-store.js';
import { KnexInboundEventStore } from './knex-inbound-event-store.js';
import { KnexMcpCredentialStore } from './knex-mcp-credential-store.js';
import { KnexMcpOAuthStateStore } from './knex-mcp-oauth-state-store.js';
import { KnexMcpServerStore } from './knex-mcp-server-store.js';
import { KnexMemoryStore } from './knex-memory-store.js';
import { KnexNotifyDeliveryStore } from './knex-notify-delivery-store.js';
import { KnexNotifyOutboxStore } from './knex-notify-outbox-store.js';
import { KnexPolicyStore } from './knex-policy-store.js';
import { KnexPromptTemplateStore } from './knex-prompt-template-store.js';
import { KnexRouteStore } from './knex-route-store.js';
import { KnexServiceStore } from './knex-service-store.js';
import { KnexSlackInstallStore } from './knex-slack-install-store.js';
import { KnexShardLeaseStore } from './knex-shard-lease-store.js';
import { KnexTurnJournalStore } from './knex-turn-journal-store.js';
import { KnexUserStore } from './knex-user-store.js';
import { KnexWatchStore } from './knex-watch-store.js';
import { KnexWorkstreamLeaseStore } from './knex-workstream-lease-store.js';
import { KnexWorkstreamStore } from './knex-workstream-store.js';
import { TickWriter } from './tick-writer.js';
import { KnexUsageStore } from './knex-usage-store.js';
import type { Stores } from './stores.js';

export function createStores(knex: Knex): Stores {
  // The memories section counts memories before every model call: remembered per scope, forgotten on writes.
  const memories = new CachedMemoryCounts(new KnexMemoryStore(knex));
  // The hot path's writes of one event-loop turn (journal, state, live_state, history, new rows) share a commit.
  const writer = new TickWriter(knex);
  // SQLite: the gateway keeps every link in memory and hears of changes (its own writes, other processes' commits).
  const linkChanges = LinkChanges.forDatabase(knex);
  return {
    users: new KnexUserStore(knex, () => linkChanges?.changed()),
    routes: new KnexRouteStore(knex, writer),
    services: new KnexServiceStore(knex),
    workstreams: new KnexWorkstreamStore(knex, (wsId) => memories.workstreamCreated(wsId), writer),
    conversations: new KnexConversationStore(knex, writer),
    approvals: new KnexApprovalStore(knex, writer),
    policies: new KnexPolicyStore(knex),
    grants: new KnexGrantStore(knex),
    lifecycle: new KnexDataLifecycle(knex),
    adminAudit: new KnexAdminAuditStore(knex),
    usage: new KnexUsageStore(knex, writer),
    memories,
    watches: new KnexWatchStore(knex),
    promptTemplates: new KnexPromptTemplateStore(knex),
    mcpServers: new KnexMcpServerStore(knex),
    mcpCredentials: new KnexMcpCredentialStore(knex),
    mcpOAuthStates: new KnexMcpOAuthStateStore(knex),
    notifyDeliveries: new KnexNotifyDeliveryStore(knex),
    notifyOutbox: new KnexNotifyOutboxStore(knex),
    // Claims made in the same event-loop turn share one INSERT (each still resolves after its commit); claims
    // nobody waits on join the hot path's write batch.
    inboundEvents: new BatchedInboundClaims(new KnexInboundEventStore(knex, writer)),
    turnJournal: new KnexTurnJournalStore(knex, writer),
    clusterStatus: new KnexClusterStatusStore(knex),
    workstreamLeases: new KnexWorkstreamLeaseStore(knex),
    handoffs: new KnexHandoffStore(knex),
    shardLeases: new KnexShardLeaseStore(knex),
    identifySlots: new KnexIdentifySlotStore(knex),
    elicitationForms: new KnexElicitationFormStore(knex),
    slackInstalls: new KnexSlackInstallStore(knex),
    ...(linkChanges === undefined ? {} : { linkChanges }),
    settleWrites: () => writer.flush(),
  };
}
