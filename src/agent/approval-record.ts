/**
 * The stored approval: one versioned codec (zod) for `approvals.items`, and the one reading of a row's state
 * (pending, decided by a person, or cancelled). The agent writes and resumes rows with it; the gateway draws cards
 * from it. ADR 0008.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../shared/result.js';
import type { ApprovalRow } from '../storage/approval-store.js';
import type { PreparedItem } from './events.js';
import type { AssistantMessage } from './messages.js';
import type { StoredApprovalItems, StoredCall } from './turn/turn-types.js';

/** `decidedBy` of rows the agent ended without a person's decision (turn cancelled, workstream closed, stale click). */
export const SYSTEM_DECIDER = 'system';

const preparedItemSchema = z.object({
  callId: z.string(),
  name: z.string(),
  approvalLabel: z.string(),
  header: z.string(),
  preview: z.string(),
  needsApproval: z.boolean(),
  error: z.string().optional(),
});

const storedCallSchema = z.object({
  callId: z.string(),
  name: z.string(),
  arguments: z.string(),
  args: z.record(z.string(), z.unknown()).optional(),
  item: preparedItemSchema,
  status: z.union([z.literal('ask'), z.literal('run'), z.object({ output: z.string(), isError: z.boolean() })]),
  untimed: z.boolean().optional(),
});

const assistantSchema = z.looseObject({ role: z.literal('assistant'), content: z.string() });

/** Version 1: the batch of calls of one model step, and the assistant message that made them. */
const storedItemsV1Schema = z.object({
  version: z.literal(1),
  calls: z.array(storedCallSchema),
  assistant: assistantSchema,
  /** Asked by a sub-agent (`task`, `plan`): never resumed after a restart, the sub-agent that waited is gone. */
  subAgent: z.string().optional(),
});

/** Encodes a batch for `approvals.items` (validated, so a reader never meets a shape it cannot decode). */
export function encodeApprovalItems(stored: StoredApprovalItems): StoredApprovalItems {
  storedItemsV1Schema.parse(stored);
  return stored;
}

/** Decodes `approvals.items`; an error when the row holds no batch this version can resume (plan rows hold none). */
export function decodeApprovalItems(items: unknown): Result<StoredApprovalItems> {
  const parsed = storedItemsV1Schema.safeParse(items);
  if (!parsed.success) return err('not a version-1 approval batch');
  if (parsed.data.subAgent !== undefined) return err('asked by a sub-agent, which does not survive a restart');
  const { version, calls, assistant } = parsed.data;
  return ok({ version, calls: calls as StoredCall[], assistant: assistant as unknown as AssistantMessage });
}

/** Version 1 of a network request: a sandboxed process of one tool call asks to reach `host:port`. */
const networkItemsV1Schema = z.object({
  version: z.literal(1),
  network: z.object({ tool: z.string(), host: z.string(), port: z.number().int(), label: z.string() }),
  item: preparedItemSchema,
});

export type StoredNetworkRequest = z.infer<typeof networkItemsV1Schema>;

/** Encodes a network request for `approvals.items` (validated). */
export function encodeNetworkItems(stored: StoredNetworkRequest): StoredNetworkRequest {
  return networkItemsV1Schema.parse(stored);
}

/** Decodes the network request of a `network` row; undefined for any other shape. */
export function decodeNetworkItems(items: unknown): StoredNetworkRequest | undefined {
  const parsed = networkItemsV1Schema.safeParse(items);
  return parsed.success ? parsed.data : undefined;
}

/** The items a card shows: the calls that wait for the decision, or the network request (none for a plan row). */
export function cardItemsOf(items: unknown): PreparedItem[] {
  const network = decodeNetworkItems(items);
  if (network !== undefined) return [network.item as PreparedItem];
  const decoded = decodeApprovalItems(items);
  if (!decoded.ok) return [];
  return decoded.value.calls.filter((call) => call.status === 'ask').map((call) => call.item);
}

/** A row as people see it. */
export type ApprovalView =
  | { state: 'pending' }
  | { state: 'decided'; approved: boolean; always: boolean; feedback: string | null; decidedBy: string }
  | { state: 'cancelled'; feedback: string | null };

/** The one rule for what a row's state means: a denial by the system, or a cancelled row, reads as cancelled. */
export function approvalViewOf(row: Pick<ApprovalRow, 'state' | 'always' | 'feedback' | 'decidedBy'>): ApprovalView {
  if (row.state === 'pending') return { state: 'pending' };
  if (
    row.state === 'cancelled' ||
    row.decidedBy === null ||
    (row.state === 'denied' && row.decidedBy === SYSTEM_DECIDER)
  ) {
    return { state: 'cancelled', feedback: row.feedback };
  }
  const approved = row.state === 'approved' || row.state === 'executed';
  return {
    state: 'decided',
    approved,
    always: approved && row.always,
    feedback: row.feedback,
    decidedBy: row.decidedBy,
  };
}
