/** Admin operations on tool policies: list, add (glob on approval labels → allow / deny / ask, priority), remove. */
import { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import type { PolicyStore, ToolPolicy } from '../../storage/index.js';
import { parseAdminInput } from './admin-input.js';

export interface PolicyView {
  policy_id: string;
  name: string;
  pattern: string;
  action: string;
  priority: number;
  enabled: boolean;
  created_by: string;
  created: string;
}

const printable = (value: string): boolean => !/[\u0000-\u001f\u007f]/.test(value);

/** The body of `POST /v1/api/admin/policies` and the flags of `sandpiper policy add`. */
export const policyInputSchema = z.strictObject({
  pattern: z
    .string({ error: 'pattern is required (a glob on approval labels, e.g. "bash" or "mcp__github__*")' })
    .trim()
    .min(1, 'pattern must not be empty')
    .max(200, 'pattern is longer than 200 characters')
    .refine(printable, 'pattern must not contain control characters'),
  action: z.enum(['allow', 'deny', 'ask'], { error: 'action must be allow, deny or ask' }),
  priority: z
    .number({ error: 'priority must be a whole number' })
    .int('priority must be a whole number')
    .min(-1_000_000, 'priority must be between -1000000 and 1000000')
    .max(1_000_000, 'priority must be between -1000000 and 1000000')
    .default(0),
  name: z
    .string()
    .trim()
    .min(1, 'name must not be empty')
    .max(100, 'name is longer than 100 characters')
    .refine(printable, 'name must not contain control characters')
    .optional(),
});

export type PolicyInput = z.input<typeof policyInputSchema>;

function view(policy: ToolPolicy): PolicyView {
  return {
    policy_id: policy.policyId,
    name: policy.name,
    pattern: policy.toolPattern,
    action: policy.action,
    priority: policy.priority,
    enabled: policy.enabled,
    created_by: policy.createdBy,
    created: policy.created,
  };
}

/** Highest priority first, the order in which they are evaluated. */
export async function listPolicies(policies: PolicyStore): Promise<PolicyView[]> {
  return (await policies.list()).map(view);
}

export async function addPolicy(policies: PolicyStore, input: unknown, createdBy: string): Promise<PolicyView> {
  const parsed = parseAdminInput(policyInputSchema, input);
  const created = await policies.create({
    name: parsed.name ?? parsed.pattern,
    toolPattern: parsed.pattern,
    action: parsed.action,
    priority: parsed.priority,
    createdBy,
  });
  return view(created);
}

/** Removes a policy by id, or by name when exactly one policy has it. */
export async function removePolicy(policies: PolicyStore, idOrName: string): Promise<PolicyView> {
  const key = idOrName.trim();
  if (key === '') throw new GatewayError('BAD_REQUEST', 'give a policy id or name (see policy list)');
  const all = await policies.list();
  const byId = all.find((policy) => policy.policyId === key);
  const byName = all.filter((policy) => policy.name === key);
  if (!byId && byName.length > 1) {
    throw new GatewayError(
      'CONFLICT',
      `${byName.length} policies are named "${key}"; remove one by its id (see policy list)`,
    );
  }
  const target = byId ?? byName[0];
  if (!target || !(await policies.delete(target.policyId)))
    throw new GatewayError('NOT_FOUND', `no policy with id or name "${key}"`);
  return view(target);
}
