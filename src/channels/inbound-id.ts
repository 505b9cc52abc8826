/** Stamps an interaction event with the platform's id of it, which the gateway's dedup ledger records first. */
import type { InboundEvent } from './channel-adapter.js';

export function withEventId(event: InboundEvent, eventId: string | undefined): InboundEvent {
  if (!eventId) return event;
  if (event.type === 'command' || event.type === 'action' || event.type === 'form') return { ...event, eventId };
  return event;
}
