/** The static list of migrations (no directory scan: works under tsx, vitest and compiled JS alike). */
import type { Knex } from 'knex';
import * as m001 from '../../migrations/20260101000001_create_users.js';
import * as m002 from '../../migrations/20260101000002_create_channel_routes.js';
import * as m003 from '../../migrations/20260101000003_create_services.js';
import * as m004 from '../../migrations/20260101000004_create_workstreams.js';
import * as m005 from '../../migrations/20260101000005_create_conversations.js';
import * as m006 from '../../migrations/20260101000006_create_structured_memories.js';
import * as m007 from '../../migrations/20260101000007_create_watches.js';
import * as m008 from '../../migrations/20260101000008_create_tool_policies.js';
import * as m009 from '../../migrations/20260101000009_create_prompt_templates.js';
import * as m010 from '../../migrations/20260101000010_create_mcp_servers.js';
import * as m011 from '../../migrations/20260101000011_create_approvals.js';
import * as m012 from '../../migrations/20260101000012_create_notify_deliveries.js';
import * as m013 from '../../migrations/20260101000013_add_route_owner.js';
import * as m102 from '../../migrations/20260102000001_index_structured_memories.js';
import * as m103 from '../../migrations/20260102000002_index_conversation_tool_calls.js';
import * as m0202_01 from '../../migrations/20260202000001_create_notify_outbox.js';
import * as m20260203_01 from '../../migrations/20260203000001_create_inbound_events.js';
import * as m20260301_01 from '../../migrations/20260301000001_create_cluster_leases.js';
import * as m201 from '../../migrations/20260201000001_create_turn_journal.js';
import * as m20260401_01 from '../../migrations/20260401000001_create_queued_messages.js';
import * as m20260501_37 from '../../migrations/20260501000037_create_admin_audit.js';
import * as m20260501_38 from '../../migrations/20260501000038_add_memory_author.js';
import * as m20260501_50 from '../../migrations/20260501000050_create_mcp_oauth_credentials.js';
import * as m20260601_2901 from '../../migrations/20260601002901_unique_turn_journal_ws.js';
import * as m20260601_2910 from '../../migrations/20260601002910_inbound_pending_claims.js';
import * as m20260601_3121 from '../../migrations/20260601003121_create_identify_slots.js';
import * as m20260601_3122 from '../../migrations/20260601003122_create_elicitation_forms.js';
import * as m20260601_3301 from '../../migrations/20260601003301_create_slack_installs.js';
import * as m20260601_3401 from '../../migrations/20260601003401_create_mcp_oauth_states.js';
import * as m20260601_3510 from '../../migrations/20260601003510_create_approval_grants.js';
import * as m20260601_3511 from '../../migrations/20260601003511_add_user_disabled.js';
import * as m20260601_3521 from '../../migrations/20260601003521_create_usage_daily.js';
import * as m20260601_3601 from '../../migrations/20260601003601_sqlite_turn_accepts.js';
import * as m20260601_3602 from '../../migrations/20260601003602_sqlite_workstream_writes.js';
import * as m20260601_3603 from '../../migrations/20260601003603_sqlite_turn_log_writes.js';
import * as m20260601_3604 from '../../migrations/20260601003604_sqlite_route_live_states.js';

const migrations: Record<string, Knex.Migration> = {
  '20260101000001_create_users': m001,
  '20260101000002_create_channel_routes': m002,
  '20260101000003_create_services': m003,
  '20260101000004_create_workstreams': m004,
  '20260101000005_create_conversations': m005,
  '20260101000006_create_structured_memories': m006,
  '20260101000007_create_watches': m007,
  '20260101000008_create_tool_policies': m008,
  '20260101000009_create_prompt_templates': m009,
  '20260101000010_create_mcp_servers': m010,
  '20260101000011_create_approvals': m011,
  '20260101000012_create_notify_deliveries': m012,
  '20260101000013_add_route_owner': m013,
  '20260102000001_index_structured_memories': m102,
  '20260102000002_index_conversation_tool_calls': m103,
  '20260202000001_create_notify_outbox': m0202_01,
  '20260203000001_create_inbound_events': m20260203_01,
  '20260301000001_create_cluster_leases': m20260301_01,
  '20260201000001_create_turn_journal': m201,
  '20260401000001_create_queued_messages': m20260401_01,
  '20260501000037_create_admin_audit': m20260501_37,
  '20260501000038_add_memory_author': m20260501_38,
  '20260501000050_create_mcp_oauth_credentials': m20260501_50,
  '20260601002901_unique_turn_journal_ws': m20260601_2901,
  '20260601002910_inbound_pending_claims': m20260601_2910,
  '20260601003121_create_identify_slots': m20260601_3121,
  '20260601003122_create_elicitation_forms': m20260601_3122,
  '20260601003301_create_slack_installs': m20260601_3301,
  '20260601003401_create_mcp_oauth_states': m20260601_3401,
  '20260601003510_create_approval_grants': m20260601_3510,
  '20260601003511_add_user_disabled': m20260601_3511,
  '20260601003521_create_usage_daily': m20260601_3521,
  '20260601003601_sqlite_turn_accepts': m20260601_3601,
  '20260601003602_sqlite_workstream_writes': m20260601_3602,
  '20260601003603_sqlite_turn_log_writes': m20260601_3603,
  '20260601003604_sqlite_route_live_states': m20260601_3604,
};

/** Migration names in order; a name, once released, never changes. */
export const migrationNames: readonly string[] = Object.keys(migrations).sort();

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: () => Promise.resolve([...migrationNames]),
  getMigrationName: (name) => name,
  getMigration: (name) => {
    const migration = migrations[name];
    if (migration === undefined) return Promise.reject(new Error(`unknown migration ${name}`));
    return Promise.resolve(migration);
  },
};
