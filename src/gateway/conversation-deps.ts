/** What the gateway lends the DM and notification-reply routers: stores, the router, and how to hand a message on. */
import type { Placement } from './cluster/coordination.js';
import type { ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import type { Router } from './router.js';

export type MessageEvent = Extract<InboundEvent, { type: 'message' }>;

export interface ConversationDeps {
  stores: Stores;
  router: Router;
  logger: Logger;
  signal: AbortSignal;
  now: () => number;
  /**
   * Binds `ws` to `channelId` (through `adapter`) and hands it `text` for `event`; the gateway applies the inbound
   * limits and takes the attachments.
   */
  send(adapter: ChannelAdapter, channelId: string, ws: Placement, text: string, event: MessageEvent): Promise<unknown>;
  /** The link hint for an unlinked writer. */
  hintUnlinked(adapter: ChannelAdapter, event: MessageEvent): Promise<void>;
}
