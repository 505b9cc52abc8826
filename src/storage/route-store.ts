/** Thread ↔ workstream routes (`channel_routes`). */

export interface ChannelRoute {
  channelType: string;
  /** Platform thread id (Discord thread id, Slack `channel:thread_ts`). */
  channelId: string;
  wsId: string;
  nodeId: string;
  /** Our user id of the person who owned the routed workstream when the route was made; null when not recorded. */
  ownerUserId: string | null;
  created: string;
  /** What the thread shows of the turn in flight (JSON written by the gateway); null when nothing is live. */
  liveState: string | null;
}

export interface RouteStore {
  getRoute(channelType: string, channelId: string): Promise<ChannelRoute | undefined>;
  /** Inserts a route; the first insert wins (returns false if one existed). */
  putRoute(route: {
    channelType: string;
    channelId: string;
    wsId: string;
    nodeId?: string;
    ownerUserId?: string;
  }): Promise<boolean>;
  /** The first route of a workstream (its home thread). */
  getRouteByWorkstream(wsId: string): Promise<ChannelRoute | undefined>;
  /** Routes of one platform, newest first. */
  listRoutes(channelType: string): Promise<ChannelRoute[]>;
  deleteRoute(channelType: string, channelId: string): Promise<boolean>;
  /** Records (or clears, with null) what the thread shows of the turn in flight. */
  setLiveState(channelType: string, channelId: string, state: string | null): Promise<void>;
}
