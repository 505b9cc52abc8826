/** Builds the Stores bundle from one knex instance. */
import type { Knex } from 'knex';
import { CachedMemoryCounts } from './cached-memory-counts.js';
import { KnexApprovalStore } from './knex-approval-store.js';
import { KnexConversationStore } from './knex-conversation-store.js';
import { KnexInboundEventStore } from './knex-inbound-event-store.js';
import { KnexMcpServerStore } from './knex-mcp-server-store.js';
import { KnexMemoryStore } from './knex-memory-store.js';
import { KnexNotifyDeliveryStore } from './knex-notify-delivery-store.js';
import { KnexNotifyOutboxStore } from './knex-notify-outbox-store.js';
import { KnexPolicyStore } from './knex-policy-store.js';
import { KnexPromptTemplateStore } from './knex-prompt-template-store.js';
import { KnexRouteStore } from './knex-route-store.js';
import { KnexServiceStore } from './knex-service-store.js';
import { KnexShardLeaseStore } from './knex-shard-lease-store.js';
import { KnexTurnJournalStore } from './knex-turn-journal-store.js';
import { KnexUserStore } from './knex-user-store.js';
import { KnexWatchStore } from './knex-watch-store.js';
import { KnexWorkstreamStore } from './knex-workstream-store.js';
import type { Stores } from './stores.js';

export function createStores(knex: Knex): Stores {
  return {
    users: new KnexUserStore(knex),
    routes: new KnexRouteStore(knex),
    services: new KnexServiceStore(knex),
    workstreams: new KnexWorkstreamStore(knex),
    conversations: new KnexConversationStore(knex),
    approvals: new KnexApprovalStore(knex),
    policies: new KnexPolicyStore(knex),
    // The memories section counts memories before every model call: remembered, forgotten on every write.
    memories: new CachedMemoryCounts(new KnexMemoryStore(knex)),
    watches: new KnexWatchStore(knex),
    promptTemplates: new KnexPromptTemplateStore(knex),
    mcpServers: new KnexMcpServerStore(knex),
    notifyDeliveries: new KnexNotifyDeliveryStore(knex),
    notifyOutbox: new KnexNotifyOutboxStore(knex),
    inboundEvents: new KnexInboundEventStore(knex),
    turnJournal: new KnexTurnJournalStore(knex),
    shardLeases: new KnexShardLeaseStore(knex),
  };
}
