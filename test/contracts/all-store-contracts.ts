/** Registers every store contract suite for one Stores factory. */
import { adminAuditStoreContract } from './admin-audit-store.contract.js';
import { approvalStoreContract } from './approval-store.contract.js';
import { clusterStoresContract } from './cluster-stores.contract.js';
import { coordinationStoresContract } from './coordination-stores.contract.js';
import { conversationStoreContract } from './conversation-store.contract.js';
import { inboundEventStoreContract } from './inbound-event-store.contract.js';
import { mcpServerStoreContract } from './mcp-server-store.contract.js';
import { memoryStoreContract } from './memory-store.contract.js';
import { notifyDeliveryStoreContract } from './notify-delivery-store.contract.js';
import { notifyOutboxStoreContract } from './notify-outbox-store.contract.js';
import { policyStoreContract } from './policy-store.contract.js';
import { promptTemplateStoreContract } from './prompt-template-store.contract.js';
import { routeStoreContract } from './route-store.contract.js';
import { serviceStoreContract } from './service-store.contract.js';
import { shardLeaseStoreContract } from './shard-lease-store.contract.js';
import { slackInstallStoreContract } from './slack-install-store.contract.js';
import type { StoresFactory } from './stores-factory.js';
import { turnJournalStoreContract } from './turn-journal-store.contract.js';
import { userStoreContract } from './user-store.contract.js';
import { watchStoreContract } from './watch-store.contract.js';
import { workstreamStoreContract } from './workstream-store.contract.js';

export function allStoreContracts(label: string, factory: StoresFactory): void {
  userStoreContract(label, factory);
  routeStoreContract(label, factory);
  serviceStoreContract(label, factory);
  workstreamStoreContract(label, factory);
  conversationStoreContract(label, factory);
  approvalStoreContract(label, factory);
  policyStoreContract(label, factory);
  memoryStoreContract(label, factory);
  watchStoreContract(label, factory);
  promptTemplateStoreContract(label, factory);
  mcpServerStoreContract(label, factory);
  notifyDeliveryStoreContract(label, factory);
  notifyOutboxStoreContract(label, factory);
  inboundEventStoreContract(label, factory);
  turnJournalStoreContract(label, factory);
  clusterStoresContract(label, factory);
  shardLeaseStoreContract(label, factory);
  coordinationStoresContract(label, factory);
  adminAuditStoreContract(label, factory);
  slackInstallStoreContract(label, factory);
}
