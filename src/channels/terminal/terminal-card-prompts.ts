/** Approval and form cards asked at the prompt: the typed answers go back as the clicks and submissions of a platform. */
import { randomUUID } from 'node:crypto';
import type {
  ActionName,
  ApprovalCard,
  FormCard,
  FormResponder,
  FormSpec,
  InboundEvent,
  PlatformUser,
} from '../channel-adapter.js';
import { approvalQuestion, parseApprovalAnswer } from './terminal-format.js';
import type { Prompt, PromptQueue } from './terminal-prompts.js';

/** Submissions of one form before the terminal declines it. */
const FORM_ATTEMPTS = 3;

export interface CardPromptsOptions {
  /** The person at the terminal. */
  user: PlatformUser;
  prompts: PromptQueue;
  /** Hands an event to the gateway and waits for it to be handled. */
  send(event: InboundEvent): Promise<void>;
  writeLine(text: string): void;
  /** The replies of an event the terminal sends: printed. */
  responder(): FormResponder;
}

export class CardPrompts {
  constructor(private readonly options: CardPromptsOptions) {}

  approvalPrompt(card: ApprovalCard): Prompt {
    return {
      question: approvalQuestion(card),
      answer: async (line) => {
        const decision = parseApprovalAnswer(line ?? '');
        const name: ActionName = decisionName(card.kind, decision);
        const feedback = line === undefined ? null : decision.feedback;
        await this.options.send({
          type: 'action',
          name,
          approvalId: card.approvalId,
          user: this.options.user,
          feedback,
          respond: this.options.responder(),
          eventId: randomUUID(),
        });
      },
    };
  }

  /** Answer? → the form opens (the gateway hands its fields) → one prompt per field → submitted; asked again on problems. */
  formPrompt(card: FormCard, key: string): Prompt {
    // An MCP sign-in wait: the link was printed; the only answer here is to cancel it.
    if (card.purpose === 'authorization') return this.signInPrompt(card, key);
    return {
      question: 'Answer? [y/n] ',
      answer: async (line) => {
        if (line !== undefined && /^y(es)?$/i.test(line.trim())) return this.openForm(card, 1);
        await this.decline(card);
      },
    };
  }

  /** The user declined the form (or cancelled the sign-in it waits for). */
  private decline(card: FormCard): Promise<void> {
    return this.options.send({
      type: 'form',
      action: 'decline',
      formId: card.formId,
      user: this.options.user,
      values: {},
      respond: this.options.responder(),
      eventId: randomUUID(),
    });
  }

  private signInPrompt(card: FormCard, key: string): Prompt {
    return {
      key,
      question: 'Waiting for the sign-in; type c to cancel it: ',
      answer: async (line) => {
        if (line !== undefined && !/^c(ancel)?$/i.test(line.trim())) {
          this.options.prompts.first([this.signInPrompt(card, key)]);
          return;
        }
        await this.decline(card);
      },
    };
  }

  private async openForm(card: FormCard, attempt: number): Promise<void> {
    let spec: FormSpec | undefined;
    const respond = {
      ...this.options.responder(),
      showForm: (form: FormSpec) => Promise.resolve(Boolean((spec = form))),
    };
    await this.options.send({
      type: 'form',
      action: 'open',
      formId: card.formId,
      user: this.options.user,
      values: {},
      respond,
      eventId: randomUUID(),
    });
    if (spec) this.options.prompts.first(this.fieldPrompts(card, spec, attempt));
  }

  private fieldPrompts(card: FormCard, spec: FormSpec, attempt: number): Prompt[] {
    const values: Record<string, string> = {};
    return spec.fields.map((field, index) => ({
      question: `${field.label}${field.required ? '' : ' [optional]'}${fieldHint(field)}: `,
      answer: async (line) => {
        values[field.id] = line ?? '';
        if (line !== undefined && index < spec.fields.length - 1) return;
        const event = { type: 'form', formId: card.formId, user: this.options.user } as const;
        if (line === undefined)
          return this.options.send({
            ...event,
            action: 'decline',
            values: {},
            respond: this.options.responder(),
            eventId: randomUUID(),
          });
        let fix = false;
        const reply = (text: string): Promise<void> => {
          fix = text.startsWith('Please fix');
          return Promise.resolve(this.options.writeLine(text));
        };
        await this.options.send({
          ...event,
          action: 'submit',
          values,
          respond: { reply, showForm: () => Promise.resolve(false) },
          eventId: randomUUID(),
        });
        if (!fix) return;
        if (attempt < FORM_ATTEMPTS) return this.openForm(card, attempt + 1);
        await this.options.send({
          ...event,
          action: 'decline',
          values: {},
          respond: this.options.responder(),
          eventId: randomUUID(),
        });
      },
    }));
  }
}

function decisionName(kind: ApprovalCard['kind'], decision: { approved: boolean; always: boolean }): ActionName {
  if (kind === 'plan') return decision.approved ? 'plan-approve' : 'plan-changes';
  if (decision.approved) return decision.always ? 'always' : 'approve';
  return kind === 'network' ? 'deny' : 'reject';
}

function fieldHint(field: FormSpec['fields'][number]): string {
  if (field.choices?.length) return ` (${field.choices.join('/')})`;
  return field.placeholder ? ` (${field.placeholder})` : '';
}
