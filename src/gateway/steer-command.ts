/**
 * `/steer <text>` and the Steer button's form: guidance for the running turn, read at its next model call
 * (src/agent/steer-inbox.ts). The caller checked the sender may control the thread (the rule of Stop); with no turn
 * running the text is sent as an ordinary message, and the sender is told which happened.
 */
import type { SteerOutcome } from '../agent/steer-inbox.js';
import type { InboundEvent } from '../channels/channel-adapter.js';
import { truncate } from '../channels/format/truncate.js';
import type { Placement } from './cluster/coordination.js';

type CommandEvent = Extract<InboundEvent, { type: 'command' }>;

/** The longest steer kept (the forms allow 2,000 characters; a slash command may carry more). */
export const MAX_STEER_CHARS = 4_000;

/** The answer when the conversation runs on another instance, which cannot take a steer. */
export const REMOTE_STEER =
  'This conversation runs on another instance, so your steer was sent to it as an ordinary message.';

/** What the sender is told for each outcome. */
export function steerReply(outcome: SteerOutcome): string {
  if (outcome.status === 'steered') return 'Steer sent: the running turn reads it before its next model call.';
  if (outcome.status === 'refused')
    return `Not sent: ${outcome.limit} messages already wait in this thread. Try again when the turn has read them.`;
  return outcome.queued
    ? 'No turn was running, so your steer was sent as an ordinary message; it waits behind the turns queued in this thread.'
    : 'No turn was running, so your steer was sent as an ordinary message.';
}

/** Steers the workstream (a workstream run by another instance gets an ordinary message). */
export async function steerTurn(placement: Placement, event: CommandEvent): Promise<void> {
  const text = (event.args.message ?? '').trim();
  if (text === '')
    return event.respond.reply(
      'Write what the running turn should take into account, e.g. `/steer use the staging database`.',
    );
  const kept = truncate(text, MAX_STEER_CHARS);
  if (placement.kind === 'local' && placement.ws.steer)
    return event.respond.reply(steerReply(await placement.ws.steer(kept)));
  // Another instance runs this conversation (ADR 0021): the text goes to it as a message.
  const sent =
    placement.kind === 'local' ? await placement.ws.send(kept) : await placement.handOff(kept, undefined, undefined);
  if (sent.status === 'refused') return event.respond.reply(steerReply(sent));
  return event.respond.reply(REMOTE_STEER);
}
