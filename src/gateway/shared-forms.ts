/**
 * Elicitation forms answerable on any instance (ADR 0052). The instance whose MCP call waits stores the open form
 * (`elicitation_forms`) when it posts the card; a click or submission that lands on another instance is checked there
 * (owner, expiry, the fields from the stored schema) and its answer written once into the row; the waiting instance
 * reads the row every `pollMs` and settles the form as if answered here. The row is the truth, the poll only wakes
 * (as for MCP OAuth waits, `mcp-oauth-states.ts`); a click on the waiting instance claims the row the same way, so
 * two answers on two instances settle one form once.
 */
import { hostname } from 'node:os';
import type { ChannelAdapter, FormOutcome, InboundEvent } from '../channels/channel-adapter.js';
import { escapeMentions } from '../channels/format/escape-mentions.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { ElicitationFormStore, StoredForm } from '../storage/elicitation-form-store.js';
import { maxFormFields } from './channel-features.js';
import { notLinked } from './commands.js';
import { buildElicitationForm, parseElicitationValues } from './elicitation-form.js';
import type { ElicitationAnswer } from './elicitations.js';
import type { Router } from './router.js';

type FormEvent = Extract<InboundEvent, { type: 'form' }>;
export type SettledOutcome = Exclude<FormOutcome, { status: 'pending' | 'unsupported' }>;

/** How often a waiting form looks for an answer given on another instance. */
export const FORM_POLL_MS = 1_000;
/** Expired forms stay this long, so a late click elsewhere is told "expired" rather than nothing. */
const PRUNE_AFTER_MS = 3_600_000;

export interface SharedFormsDeps {
  store: ElicitationFormStore;
  router: Router;
  logger: Logger;
  now: () => number;
  pollMs?: number;
}

/** What a stored answer says: the answer itself and how the card shows it. */
export interface StoredAnswer {
  answer: ElicitationAnswer;
  outcome: SettledOutcome;
}

export class SharedForms {
  private readonly holder = `${hostname()}:${process.pid}`;

  constructor(private readonly deps: SharedFormsDeps) {}

  /** Stores an open form; a database failure is logged and the form is answerable here only. */
  async record(form: Omit<StoredForm, 'answer' | 'decidedBy' | 'holder'>): Promise<void> {
    try {
      await this.deps.store.create({ ...form, holder: this.holder }, this.deps.now() - PRUNE_AFTER_MS);
    } catch (error) {
      this.deps.logger.warn(
        { elicitationId: form.formId, error: describeError(error) },
        'elicitation form not stored; only this instance can take its answer',
      );
    }
  }

  /** Claims the form for an answer given here: true when nobody answered it first (or the row cannot be read). */
  async claim(formId: string, stored: StoredAnswer): Promise<boolean> {
    try {
      if (await this.deps.store.answer(formId, JSON.stringify(stored), decidedByOf(stored.outcome))) return true;
      return (await this.deps.store.get(formId)) === undefined;
    } catch (error) {
      this.deps.logger.warn({ elicitationId: formId, error: describeError(error) }, 'elicitation answer not stored');
      return true;
    }
  }

  /** Calls `onAnswer` once an answer given on another instance is stored; returns the function that stops looking. */
  watch(formId: string, onAnswer: (stored: StoredAnswer) => void): () => void {
    const timer = setInterval(() => {
      void this.read(formId).then((stored) => {
        if (stored === undefined) return;
        clearInterval(timer);
        onAnswer(stored);
      });
    }, this.deps.pollMs ?? FORM_POLL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** A click on a form this instance does not wait for: answered from the row; false when no such form is stored. */
  async onForm(adapter: ChannelAdapter, event: FormEvent): Promise<boolean> {
    const form = await this.deps.store.get(event.formId).catch(() => undefined);
    if (form === undefined) return false;
    if (form.answer !== null || this.deps.now() >= form.expiresAt) {
      await event.respond.reply(form.answer === null ? 'This request has expired.' : lateText(form.answer));
      return true;
    }
    const user = await this.deps.router.linkedUser(adapter.platform, event.user.id);
    if (!user) return (await event.respond.reply(notLinked(adapter)), true);
    if (user.userId !== form.ownerUserId && !user.isAdmin)
      return (await event.respond.reply('Only the owner of this workstream can answer this.'), true);
    await this.answer(adapter, event, form);
    return true;
  }

  /** The owner's (or an admin's) click or submission on a stored form. */
  private async answer(adapter: ChannelAdapter, event: FormEvent, form: StoredForm): Promise<void> {
    const decidedBy = escapeMentions(event.user.name);
    const built = buildElicitationForm(form.requestedSchema, maxFormFields(adapter));
    if (event.action === 'decline' || !built.ok) {
      const stored: StoredAnswer = { answer: { action: 'decline' }, outcome: { status: 'declined', decidedBy } };
      return event.respond.reply(
        (await this.claim(form.formId, stored)) ? 'Declined.' : 'This request was already answered.',
      );
    }
    if (event.action === 'open' && built.value.length > 0) {
      const spec = {
        formId: form.formId,
        title: `Input for ${form.server}`,
        fields: built.value.map(({ field }) => field),
      };
      if (!(await event.respond.showForm(spec)))
        await event.respond.reply('That took too long; please click Answer again.');
      return;
    }
    const parsed = parseElicitationValues(built.value, event.values);
    if (!parsed.ok)
      return event.respond.reply(
        `Please fix the form and answer again:\n${parsed.error.map((problem) => `• ${problem}`).join('\n')}`,
      );
    const stored: StoredAnswer = {
      answer: { action: 'accept', content: parsed.value },
      outcome: { status: 'answered', decidedBy },
    };
    this.deps.logger.info(
      { elicitationId: form.formId, holder: form.holder },
      'elicitation answered here for a call waiting on another instance',
    );
    await event.respond.reply(
      (await this.claim(form.formId, stored)) ? 'Answer sent.' : 'This request was already answered.',
    );
  }

  /** The answer stored for a form, if any. */
  async read(formId: string): Promise<StoredAnswer | undefined> {
    try {
      const answer = (await this.deps.store.get(formId))?.answer;
      return answer === null || answer === undefined ? undefined : (JSON.parse(answer) as StoredAnswer);
    } catch {
      return undefined;
    }
  }
}

function decidedByOf(outcome: SettledOutcome): string {
  return 'decidedBy' in outcome ? outcome.decidedBy : outcome.status;
}

function lateText(answer: string): string {
  try {
    const status = (JSON.parse(answer) as StoredAnswer).outcome.status;
    if (status === 'answered') return 'This request was already answered.';
    if (status === 'declined') return 'This request was already declined.';
  } catch {
    // An unreadable row reads as expired.
  }
  return 'This request has expired.';
}
