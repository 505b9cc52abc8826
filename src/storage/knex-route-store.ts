/** RouteStore on knex: platform thread ↔ workstream routes (`channel_routes`). */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import type { ChannelRoute, RouteStore } from './route-store.js';
import { nullableText, text, type DbRow } from './rows.js';
import { guard } from './storage-errors.js';
import { routeKey } from './merged-statements.js';
import { isSqlite } from './sqlite-statements.js';
import { guardAfter, TickWriter } from './tick-writer.js';

function toRoute(row: DbRow): ChannelRoute {
  return {
    channelType: text(row.channel_type),
    channelId: text(row.channel_id),
    wsId: text(row.ws_id),
    nodeId: text(row.node_id),
    ownerUserId: nullableText(row.owner_user_id),
    created: text(row.created),
    liveState: nullableText(row.live_state),
  };
}

export class KnexRouteStore implements RouteStore {
  /** SQLite records live messages as rows of the `route_live_states` view (migration 20260601003604). */
  private readonly sqlite: boolean;

  constructor(
    private readonly knex: Knex,
    /** `live_state` shares one transaction per event-loop turn with the other hot-path writes (ADR 0026). */
    private readonly writer: TickWriter = new TickWriter(knex),
  ) {
    this.sqlite = isSqlite(knex);
  }

  getRoute(channelType: string, channelId: string): Promise<ChannelRoute | undefined> {
    return guardAfter(this.writer, 'routes.getRoute', async () => {
      const row = (await this.knex('channel_routes')
        .where({ channel_type: channelType, channel_id: channelId })
        .first()) as DbRow | undefined;
      return row ? toRoute(row) : undefined;
    });
  }

  putRoute(route: {
    channelType: string;
    channelId: string;
    wsId: string;
    nodeId?: string;
    ownerUserId?: string;
  }): Promise<boolean> {
    return guardAfter(this.writer, 'routes.putRoute', async () => {
      const inserted = await this.knex('channel_routes')
        .insert({
          channel_type: route.channelType,
          channel_id: route.channelId,
          ws_id: route.wsId,
          node_id: route.nodeId ?? '',
          owner_user_id: route.ownerUserId ?? null,
          created: isoNow(),
        })
        .onConflict(['channel_type', 'channel_id'])
        .ignore()
        .returning('channel_id');
      return inserted.length > 0;
    });
  }

  getRouteByWorkstream(wsId: string): Promise<ChannelRoute | undefined> {
    return guardAfter(this.writer, 'routes.getRouteByWorkstream', async () => {
      const row = (await this.knex('channel_routes')
        .where({ ws_id: wsId })
        .orderBy([{ column: 'created' }, { column: 'channel_type' }, { column: 'channel_id' }])
        .first()) as DbRow | undefined;
      return row ? toRoute(row) : undefined;
    });
  }

  listRoutes(channelType: string): Promise<ChannelRoute[]> {
    return guardAfter(this.writer, 'routes.listRoutes', async () => {
      const rows = (await this.knex('channel_routes')
        .where({ channel_type: channelType })
        .orderBy([{ column: 'created', order: 'desc' }, { column: 'channel_id' }])) as DbRow[];
      return rows.map(toRoute);
    });
  }

  setLiveState(channelType: string, channelId: string, state: string | null): Promise<void> {
    return guard('routes.setLiveState', async () => {
      const touches = [routeKey(channelType, channelId)];
      if (this.sqlite) {
        // One row of a view: the group's other threads' records go in the same statement.
        const row = { channel_type: channelType, channel_id: channelId, live_state: state };
        await this.writer.writeRow({ insertInto: 'route_live_states', row }, touches);
        return;
      }
      await this.writer.write(
        (db) =>
          db
            .table('channel_routes')
            .where({ channel_type: channelType, channel_id: channelId })
            .update({ live_state: state }),
        { oneStatement: true, touches },
      );
    });
  }

  deleteRoute(channelType: string, channelId: string): Promise<boolean> {
    return guardAfter(this.writer, 'routes.deleteRoute', async () => {
      const removed = await this.knex('channel_routes')
        .where({ channel_type: channelType, channel_id: channelId })
        .delete();
      return removed > 0;
    });
  }
}
