/** `sandpiper status`: the instances on this database, the Discord shards each holds and its workstream leases (ADR 0023). */
import { formatAge } from '../gateway/admin/admin-input.js';
import { instanceStaleAfterSeconds } from '../main-coordination.js';
import { readClusterStatus, type ClusterStatusView, type InstanceView } from '../gateway/admin/admin-status.js';
import { writeLine, type CliCommand, type CliContext } from './cli-context.js';
import { JSON_OPTION, printJson, printTable, wantsJson } from './cli-output.js';
import { requirePositionals, withStores } from './command-table.js';
import { describeDatabase } from './open-database.js';

/** `0/2` per shard (`<bot>:0/2` when several bots share the database), marked when its lease has expired. */
function shardsCell(instance: InstanceView, manyBots: boolean): string[] {
  return instance.shards.map(
    (shard) =>
      `${manyBots ? `${shard.bot}:` : ''}${shard.shard_id}/${shard.shard_count}${shard.live ? '' : '(expired)'}`,
  );
}

function leasesCell(instance: InstanceView): string {
  const { live, expired } = instance.workstream_leases;
  return expired > 0 ? `${live} (+${expired} expired)` : String(live);
}

function printStatus(context: CliContext, status: ClusterStatusView, database: string): void {
  const { totals } = status;
  writeLine(
    context.io.stdout,
    `database: ${database}; instances: ${totals.alive} alive, ${totals.stale} stale (stale after ${status.stale_after_seconds}s without a heartbeat)`,
  );
  const manyBots = status.bots.length > 1;
  printTable(
    context,
    ['instance', 'state', 'heartbeat', 'shards', 'workstreams', 'url'],
    status.instances.map((instance) => [
      instance.instance_id,
      instance.state,
      instance.heartbeat_age_seconds === null ? '' : `${formatAge(instance.heartbeat_age_seconds)} ago`,
      shardsCell(instance, manyBots),
      leasesCell(instance),
      instance.url,
    ]),
    'no instances (no gateway has heartbeated on this database in the last 24 h)',
  );
  const shards = totals.shards;
  const unheld = status.bots
    .filter((bot) => bot.unheld_shard_ids.length > 0)
    .map((bot) => `${bot.bot} shards ${bot.unheld_shard_ids.join(',')}`);
  writeLine(
    context.io.stdout,
    `totals: shards ${shards.held} held, ${shards.expired} expired, ${shards.unheld} unheld${unheld.length > 0 ? ` (${unheld.join('; ')})` : ''}; ` +
      `workstream leases ${totals.workstream_leases.live} live, ${totals.workstream_leases.expired} expired`,
  );
}

export const statusCommand: CliCommand = {
  name: 'status',
  usage: 'sandpiper status [--json]',
  summary: 'list the instances on the database, the Discord shards each holds and its workstream leases',
  options: JSON_OPTION,
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const config = context.loadConfig();
    const status = await withStores(context, (stores) =>
      readClusterStatus(stores.clusterStatus, instanceStaleAfterSeconds(config)),
    );
    if (wantsJson(context)) printJson(context, status);
    else printStatus(context, status, describeDatabase(config.database.url));
    return 0;
  },
};
