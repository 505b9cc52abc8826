/** Tool policies (`tool_policies`): glob patterns on approval labels → allow / deny / ask. */

export type PolicyAction = 'allow' | 'deny' | 'ask';

export interface ToolPolicy {
  policyId: string;
  name: string;
  toolPattern: string;
  action: PolicyAction;
  priority: number;
  orgId: string;
  enabled: boolean;
  createdBy: string;
  created: string;
  updated: string;
}

export interface PolicyStore {
  create(
    input: Pick<ToolPolicy, 'name' | 'toolPattern' | 'action'> &
      Partial<Pick<ToolPolicy, 'priority' | 'orgId' | 'enabled' | 'createdBy'>>,
  ): Promise<ToolPolicy>;
  /** All policies, highest priority first (ties in insertion order). */
  list(orgId?: string): Promise<ToolPolicy[]>;
  update(
    policyId: string,
    patch: Partial<Pick<ToolPolicy, 'name' | 'toolPattern' | 'action' | 'priority' | 'enabled'>>,
  ): Promise<boolean>;
  delete(policyId: string): Promise<boolean>;
}
