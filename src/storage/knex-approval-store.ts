/** ApprovalStore on knex: durable approval requests, resolved and claimed with conditional updates. */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import type { ApprovalDecision, ApprovalKind, ApprovalRow, ApprovalState, ApprovalStore } from './approval-store.js';
import { fromDbBool, nullableText, parseJsonOr, text, toDbBool, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';
import { guardAfter, TickWriter } from './tick-writer.js';

const STATES: readonly ApprovalState[] = ['pending', 'approved', 'denied', 'executed', 'cancelled'];
const KINDS: readonly ApprovalKind[] = ['tools', 'plan', 'network'];

function toApproval(row: DbRow): ApprovalRow {
  return {
    approvalId: text(row.approval_id),
    wsId: text(row.ws_id),
    turnId: text(row.turn_id),
    kind: KINDS.find((kind) => kind === row.kind) ?? 'tools',
    ownerUserId: text(row.owner_user_id),
    items: parseJsonOr<unknown>(row.items, null, (value): value is unknown => value !== undefined),
    state: STATES.find((state) => state === row.state) ?? 'pending',
    always: fromDbBool(row.always),
    feedback: nullableText(row.feedback),
    decidedBy: nullableText(row.decided_by),
    channelType: nullableText(row.channel_type),
    channelId: nullableText(row.channel_id),
    messageId: nullableText(row.message_id),
    created: text(row.created),
    decided: nullableText(row.decided),
  };
}

export class KnexApprovalStore implements ApprovalStore {
  constructor(
    private readonly knex: Knex,
    /** A new row shares the event-loop turn's transaction; `create` still resolves only after it committed (ADR 0026). */
    private readonly writer: TickWriter = new TickWriter(knex),
  ) {}

  create(
    row: Pick<ApprovalRow, 'approvalId' | 'wsId' | 'turnId' | 'kind' | 'ownerUserId' | 'items'>,
  ): Promise<ApprovalRow> {
    return guard('approvals.create', async () => {
      const dbRow = {
        approval_id: row.approvalId,
        ws_id: row.wsId,
        turn_id: row.turnId,
        kind: row.kind,
        owner_user_id: row.ownerUserId,
        items: JSON.stringify(row.items ?? null),
        state: 'pending',
        always: 0,
        feedback: null,
        decided_by: null,
        channel_type: null,
        channel_id: null,
        message_id: null,
        created: isoNow(),
        decided: null,
      };
      await this.writer.write((db) => db.table('approvals').insert(dbRow), { oneStatement: true });
      return toApproval(dbRow);
    });
  }

  get(approvalId: string): Promise<ApprovalRow | undefined> {
    return guardAfter(this.writer, 'approvals.get', async () => {
      const row = (await this.knex('approvals').where({ approval_id: approvalId }).first()) as DbRow | undefined;
      return row ? toApproval(row) : undefined;
    });
  }

  resolve(approvalId: string, decision: ApprovalDecision): Promise<{ changed: boolean; row: ApprovalRow } | undefined> {
    return guardAfter(this.writer, 'approvals.resolve', async () => {
      // The WHERE state = 'pending' makes the decision atomic across processes: only one click wins.
      const changed = await this.knex('approvals')
        .where({ approval_id: approvalId, state: 'pending' })
        .update({
          state: decision.approved ? 'approved' : 'denied',
          always: toDbBool(decision.approved && decision.always),
          feedback: decision.feedback,
          decided_by: decision.decidedBy,
          decided: isoNow(),
        });
      const row = await this.get(approvalId);
      return row === undefined ? undefined : { changed: changed > 0, row };
    });
  }

  claimExecution(approvalId: string): Promise<boolean> {
    return guardAfter(this.writer, 'approvals.claimExecution', async () => {
      const changed = await this.knex('approvals')
        .where({ approval_id: approvalId })
        .whereIn('state', ['approved', 'denied'])
        .update({ state: 'executed' });
      return changed > 0;
    });
  }

  setCard(approvalId: string, card: { channelType: string; channelId: string; messageId: string }): Promise<void> {
    return guardAfter(this.writer, 'approvals.setCard', async () => {
      await this.knex('approvals')
        .where({ approval_id: approvalId })
        .update({ channel_type: card.channelType, channel_id: card.channelId, message_id: card.messageId });
    });
  }

  listPending(wsId?: string): Promise<ApprovalRow[]> {
    return guardAfter(this.writer, 'approvals.listPending', async () => {
      const query = this.knex('approvals').where({ state: 'pending' });
      if (wsId !== undefined) query.andWhere({ ws_id: wsId });
      const rows = (await query.orderBy('seq')) as DbRow[];
      return rows.map(toApproval);
    });
  }

  listByKind(kind: ApprovalKind, limit: number): Promise<ApprovalRow[]> {
    return guardAfter(this.writer, 'approvals.listByKind', async () => {
      const rows = (await this.knex('approvals').where({ kind }).orderBy('seq', 'desc').limit(limit)) as DbRow[];
      return rows.map(toApproval);
    });
  }

  listDecided(filter: { limit: number; userId?: string }): Promise<ApprovalRow[]> {
    return guardAfter(this.writer, 'approvals.listDecided', async () => {
      const query = this.knex('approvals').whereNot({ state: 'pending' });
      if (filter.userId !== undefined)
        query.andWhere((q) => q.where({ owner_user_id: filter.userId }).orWhere({ decided_by: filter.userId }));
      const rows = (await query.orderBy('seq', 'desc').limit(filter.limit)) as DbRow[];
      return rows.map(toApproval);
    });
  }

  listForTurn(turnId: string): Promise<ApprovalRow[]> {
    return guardAfter(this.writer, 'approvals.listForTurn', async () => {
      const rows = (await this.knex('approvals').where({ turn_id: turnId }).orderBy('seq')) as DbRow[];
      return rows.map(toApproval);
    });
  }

  cancelPending(wsId: string): Promise<number> {
    return guardAfter(this.writer, 'approvals.cancelPending', () =>
      this.knex('approvals').where({ ws_id: wsId, state: 'pending' }).update({ state: 'cancelled', decided: isoNow() }),
    );
  }
}
