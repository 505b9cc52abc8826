/** Slack clicks and modal submissions on form cards → `form` inbound events; the Answer click opens the modal in time. */
import type { FormResponder, InboundEvent, PlatformUser } from '../channel-adapter.js';
import { buildFormModal, type FormSubmission } from './slack-forms.js';
import type { ReplyTarget } from './slack-interactions.js';

/**
 * A click's trigger_id opens a modal only within 3 s of the click; past this much of it (measured from receipt)
 * `showForm` gives up at once, so the gateway answers privately instead ("click Answer again").
 */
export const TRIGGER_DEADLINE_MS = 2_500;

export interface FormInteractionDeps {
  /** Hands an event to the gateway. */
  deliver(event: InboundEvent): void;
  /** Opens a modal with a trigger id; false when Slack refused (expired trigger, invalid view). */
  openView(triggerId: string, view: Record<string, unknown>): Promise<boolean>;
  /** A private answer; never throws. */
  privateReply(target: ReplyTarget, text: string): Promise<void>;
  /** Clock (tests may pin it); defaults to Date.now. */
  now?: () => number;
}

/** An Answer or Decline click (already acknowledged: Slack's ack does not spend the trigger id). */
export function onFormAction(
  click: {
    action: 'open' | 'decline';
    formId: string;
    user: PlatformUser;
    triggerId: string | undefined;
    target: ReplyTarget;
  },
  deps: FormInteractionDeps,
): void {
  const base = { type: 'form', formId: click.formId, user: click.user, values: {} } as const;
  if (click.action === 'decline') {
    deps.deliver({ ...base, action: 'decline', respond: laterResponder(deps, click.target) });
    return;
  }
  deps.deliver({ ...base, action: 'open', respond: openResponder(deps, click.triggerId, click.target) });
}

/** A submitted form modal (already acknowledged, which closes it); answers go privately to the clicking user. */
export function onFormSubmission(submission: FormSubmission, user: PlatformUser, deps: FormInteractionDeps): void {
  const target: ReplyTarget = { responseUrl: submission.responseUrl, channelId: submission.channelId, userId: user.id };
  deps.deliver({
    type: 'form',
    action: 'submit',
    formId: submission.formId,
    user,
    values: submission.values,
    respond: laterResponder(deps, target),
  });
}

/** The first answer to an Answer click: the modal (while the trigger is fresh) or a private reply. */
function openResponder(deps: FormInteractionDeps, triggerId: string | undefined, target: ReplyTarget): FormResponder {
  const now = deps.now ?? Date.now;
  const receivedAt = now();
  let answered = false;
  return {
    showForm: async (form) => {
      if (answered || !triggerId || now() - receivedAt > TRIGGER_DEADLINE_MS) return false;
      answered = true;
      return deps.openView(
        triggerId,
        buildFormModal(form, { responseUrl: target.responseUrl, channelId: target.channelId }),
      );
    },
    reply: async (text) => {
      answered = true;
      await deps.privateReply(target, text);
    },
  };
}

/** Answers after the acknowledgement: private replies only (a modal needs a fresh trigger). */
function laterResponder(deps: FormInteractionDeps, target: ReplyTarget): FormResponder {
  return { showForm: () => Promise.resolve(false), reply: (text) => deps.privateReply(target, text) };
}
