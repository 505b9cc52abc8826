/** PolicyStore on knex: tool policies, highest priority first, ties in insertion order. */
import type { Knex } from 'knex';
import { newUuid } from '../shared/ids.js';
import { isoNow } from '../shared/time.js';
import type { PolicyAction, PolicyStore, ToolPolicy } from './policy-store.js';
import { definedOnly, fromDbBool, text, toDbBool, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

type PolicyInput = Pick<ToolPolicy, 'name' | 'toolPattern' | 'action'> &
  Partial<Pick<ToolPolicy, 'priority' | 'orgId' | 'enabled' | 'createdBy'>>;
type PolicyPatch = Partial<Pick<ToolPolicy, 'name' | 'toolPattern' | 'action' | 'priority' | 'enabled'>>;

function toAction(value: unknown): PolicyAction {
  return value === 'allow' || value === 'deny' ? value : 'ask';
}

function toPolicy(row: DbRow): ToolPolicy {
  return {
    policyId: text(row.policy_id),
    name: text(row.name),
    toolPattern: text(row.tool_pattern),
    action: toAction(row.action),
    priority: toNumber(row.priority),
    orgId: text(row.org_id),
    enabled: fromDbBool(row.enabled),
    createdBy: text(row.created_by),
    created: text(row.created),
    updated: text(row.updated),
  };
}

export class KnexPolicyStore implements PolicyStore {
  constructor(private readonly knex: Knex) {}

  create(input: PolicyInput): Promise<ToolPolicy> {
    return guard('policies.create', async () => {
      const now = isoNow();
      const row = {
        policy_id: newUuid(),
        name: input.name,
        tool_pattern: input.toolPattern,
        action: input.action,
        priority: Math.trunc(input.priority ?? 0),
        org_id: input.orgId ?? '',
        enabled: toDbBool(input.enabled ?? true),
        created_by: input.createdBy ?? '',
        created: now,
        updated: now,
      };
      await this.knex('tool_policies').insert(row);
      return toPolicy(row);
    });
  }

  list(orgId?: string): Promise<ToolPolicy[]> {
    return guard('policies.list', async () => {
      const query = this.knex('tool_policies');
      if (orgId !== undefined && orgId !== '') query.where({ org_id: orgId });
      const rows = (await query.orderBy([{ column: 'priority', order: 'desc' }, { column: 'seq' }])) as DbRow[];
      return rows.map(toPolicy);
    });
  }

  update(policyId: string, patch: PolicyPatch): Promise<boolean> {
    return guard('policies.update', async () => {
      const columns = definedOnly({
        name: patch.name,
        tool_pattern: patch.toolPattern,
        action: patch.action,
        priority: patch.priority === undefined ? undefined : Math.trunc(patch.priority),
        enabled: patch.enabled === undefined ? undefined : toDbBool(patch.enabled),
      });
      const changed = await this.knex('tool_policies')
        .where({ policy_id: policyId })
        .update({ ...columns, updated: isoNow() });
      return changed > 0;
    });
  }

  delete(policyId: string): Promise<boolean> {
    return guard(
      'policies.delete',
      async () => (await this.knex('tool_policies').where({ policy_id: policyId }).delete()) > 0,
    );
  }
}
