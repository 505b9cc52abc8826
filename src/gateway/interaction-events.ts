/** Interactions (commands, clicks, forms): their sender waits for a private answer, which they always get. */
import type { InboundEvent } from '../channels/channel-adapter.js';

/** An interaction is never left without an answer, even while stopping. */
export async function refuseWhileStopping(event: InboundEvent): Promise<void> {
  if (isInteraction(event)) await event.respond.reply('Sandpiper is shutting down; try again in a moment.');
}

/** Events whose sender waits for a private answer. */
export function isInteraction(
  event: InboundEvent,
): event is Extract<InboundEvent, { type: 'command' | 'action' | 'form' }> {
  return event.type === 'command' || event.type === 'action' || event.type === 'form';
}
