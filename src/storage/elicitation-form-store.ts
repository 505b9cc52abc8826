/**
 * Open MCP elicitation forms (`elicitation_forms`, ADR 0052): shared by every instance, so a submission that lands on
 * any of them reaches the call waiting on the instance that asked. The row is the truth; the answer is written once.
 */
import type { Knex } from 'knex';
import { nullableText, text, toNumber, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';

export interface StoredForm {
  formId: string;
  /** The instance whose call waits for the answer. */
  holder: string;
  server: string;
  message: string;
  requestedSchema: Record<string, unknown>;
  ownerUserId: string;
  platform: string;
  channelId: string;
  expiresAt: number;
  /** JSON of the answer (`{ action, content? }`), null while open. */
  answer: string | null;
  decidedBy: string | null;
}

export interface ElicitationFormStore {
  /** Writes an open form (and deletes the forms that expired before `pruneBefore`). */
  create(form: Omit<StoredForm, 'answer' | 'decidedBy'>, pruneBefore: number): Promise<void>;
  get(formId: string): Promise<StoredForm | undefined>;
  /** Records the answer of an open form: true for exactly one caller, on any instance; false when already answered. */
  answer(formId: string, answer: string, decidedBy: string): Promise<boolean>;
}

const TABLE = 'elicitation_forms';

function toForm(row: DbRow): StoredForm {
  return {
    formId: text(row.form_id),
    holder: text(row.holder),
    server: text(row.server),
    message: text(row.message),
    requestedSchema: JSON.parse(text(row.requested_schema)) as Record<string, unknown>,
    ownerUserId: text(row.owner_user_id),
    platform: text(row.platform),
    channelId: text(row.channel_id),
    expiresAt: toNumber(row.expires_at),
    answer: nullableText(row.answer),
    decidedBy: nullableText(row.decided_by),
  };
}

export class KnexElicitationFormStore implements ElicitationFormStore {
  constructor(private readonly knex: Knex) {}

  create(form: Omit<StoredForm, 'answer' | 'decidedBy'>, pruneBefore: number): Promise<void> {
    return guard('elicitationForms.create', async () => {
      await this.knex(TABLE).where('expires_at', '<', pruneBefore).delete();
      await this.knex(TABLE).insert({
        form_id: form.formId,
        holder: form.holder,
        server: form.server,
        message: form.message,
        requested_schema: JSON.stringify(form.requestedSchema),
        owner_user_id: form.ownerUserId,
        platform: form.platform,
        channel_id: form.channelId,
        expires_at: form.expiresAt,
      });
    });
  }

  get(formId: string): Promise<StoredForm | undefined> {
    return guard('elicitationForms.get', async () => {
      const row = (await this.knex(TABLE).where('form_id', formId).first()) as DbRow | undefined;
      return row === undefined ? undefined : toForm(row);
    });
  }

  answer(formId: string, answer: string, decidedBy: string): Promise<boolean> {
    return guard('elicitationForms.answer', async () => {
      const changed = await this.knex(TABLE)
        .where('form_id', formId)
        .whereNull('answer')
        .update({ answer, decided_by: decidedBy });
      return changed > 0;
    });
  }
}
