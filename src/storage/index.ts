/** Public surface of the storage module: open a database, migrate it, and get the stores. */
export {
  createKnex,
  isPostgres,
  pendingMigrations,
  rollbackMigrations,
  runMigrations,
  type CreateKnexOptions,
  type Knex,
} from './db.js';
export { createStores } from './create-stores.js';
export { migrationNames } from './migration-source.js';
export { isUniqueViolation } from './storage-errors.js';
export { lockSqliteInstance, type InstanceLock } from './instance-lock.js';
export type * from './admin-audit-store.js';
export type * from './approval-store.js';
export type * from './cluster-status-store.js';
export type * from './conversation-store.js';
export type * from './grant-store.js';
export type { DataLifecycleStore, PurgeResult, RemovedUser, RetentionPolicy } from './data-purge.js';
export { REMOVED_USER } from './data-purge.js';
export type * from './inbound-event-store.js';
export { messageSortKey } from './inbound-event-store.js';
export type * from './mcp-server-store.js';
export type * from './memory-store.js';
export type * from './notify-delivery-store.js';
export type * from './notify-outbox-store.js';
export type * from './policy-store.js';
export type * from './prompt-template-store.js';
export type * from './prompt-template-store.js';
export type * from './route-store.js';
export type * from './service-store.js';
export type * from './shard-lease-store.js';
export type * from './slack-install-store.js';
export type * from './stores.js';
export type * from './turn-journal-store.js';
export type * from './user-store.js';
export type * from './watch-store.js';
export type * from './workstream-store.js';
export type * from './workstream-lease-store.js';
export type * from './handoff-store.js';
export { HANDOFF_CHANNEL } from './handoff-store.js';
