/**
 * Benchmark: throughput of 1 and of 3 `sandpiper start` processes on one PostgreSQL database (issue 15) against the
 * same fakes (sharded fake Discord, fake Slack, zero-latency fake LLM; test/helpers/cluster-*.ts), and the failover
 * time after a SIGKILL. A round sends `--conversations` new conversations (one turn each, spread over both Discord
 * shards and Slack, `--concurrency` at a time) and counts answered turns per second of wall time; rounds alternate
 * which cluster goes first, figures are medians. Then the 3-instance cluster runs the mixed workload of the failover
 * test (`--failover-conversations`, approvals waiting at cards) and one instance is SIGKILLed half-way: the time from
 * the kill until its Discord shard is held elsewhere and its interrupted turns are answered again.
 * Uses SANDPIPER_TEST_PG_URL, or starts a throwaway PostgreSQL server (as .ci/run does; needs root).
 *
 *   npm run bench:scale -- --rounds=3 --conversations=90
 *   npm run bench:scale -- --shards=1      (a gateway that cannot shard yet: Discord then runs on one shard)
 */
import { launchCluster, type LaunchedCluster } from '../test/helpers/cluster-launch.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../test/helpers/cluster-database.js';
import { formatReport, type WorkloadReport } from '../test/helpers/cluster-report.js';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const ROUNDS = Number(arg('rounds', '3'));
const CONVERSATIONS = Number(arg('conversations', '90'));
const CONCURRENCY = Number(arg('concurrency', '30'));
const SHARDS = Number(arg('shards', '2'));
const FAILOVER_CONVERSATIONS = Number(arg('failover-conversations', '60'));
const SIZES = [1, 3] as const;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** One line per problem kind a run showed (empty when it was clean). */
function problems(report: WorkloadReport): string[] {
  const found: string[] = [];
  if (report.lost.length > 0) found.push(`${report.lost.length} answers lost`);
  if (report.duplicated.length > 0) found.push(`${report.duplicated.length} answers duplicated`);
  if (report.clickProblems.length > 0) found.push(`${report.clickProblems.length} clicks not answered once`);
  if (report.stuck.length > 0) found.push(`${report.stuck.length} conversations stuck`);
  return found;
}

async function serverUrl(): Promise<{ url: string; server: ThrowawayPostgres | undefined }> {
  const given = process.env['SANDPIPER_TEST_PG_URL'];
  if (given !== undefined && given !== '') return { url: given, server: undefined };
  const server = await startThrowawayPostgres();
  console.log(`started a throwaway PostgreSQL: ${server.url}`);
  return { url: server.url, server };
}

async function throughputRounds(clusters: Map<number, LaunchedCluster>): Promise<Map<number, number[]>> {
  const rates = new Map<number, number[]>(SIZES.map((size) => [size, []]));
  let first = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [...SIZES] : [...SIZES].reverse();
    for (const size of order) {
      const launched = clusters.get(size) as LaunchedCluster;
      const report = await launched.workload.run({
        conversations: CONVERSATIONS,
        plainOnly: true,
        concurrency: CONCURRENCY,
        first,
      });
      first += CONVERSATIONS;
      const answered = report.answers - report.lost.length;
      const rate = answered / (report.wallMs / 1000);
      rates.get(size)?.push(rate);
      const issues = problems(report);
      console.log(
        `round ${round + 1}, ${size} instance(s): ${answered}/${report.answers} turns in ${(report.wallMs / 1000).toFixed(2)} s = ${rate.toFixed(1)} turns/s${issues.length > 0 ? ` (${issues.join(', ')})` : ''}`,
      );
    }
  }
  return rates;
}

async function main(): Promise<void> {
  const { url, server } = await serverUrl();
  const clusters = new Map<number, LaunchedCluster>();
  try {
    for (const size of SIZES) clusters.set(size, await launchCluster(url, size, SHARDS));
    const rates = await throughputRounds(clusters);
    const three = clusters.get(3) as LaunchedCluster;
    const failover = await three.workload.run({ conversations: FAILOVER_CONVERSATIONS, kill: true, first: 100_000 });
    console.log(`\nfailover run:\n${formatReport(failover)}`);
    const failoverMs = failover.kill?.failoverMs;
    console.log(`\n| instances | turns/s (median of ${ROUNDS}) | rounds |`);
    console.log('|---|---|---|');
    for (const size of SIZES) {
      const values = rates.get(size) ?? [];
      console.log(
        `| ${size} | ${median(values).toFixed(1)} | ${values.map((value) => value.toFixed(1)).join(' / ')} |`,
      );
    }
    const shardsMs = failover.kill?.shardsMs;
    console.log(
      `\nfailover after SIGKILL (3 instances, ${SHARDS} shard(s), heartbeat 1 s, lease TTL 3 s): ${failoverMs === undefined ? 'did not complete' : `${(failoverMs / 1000).toFixed(2)} s`}` +
        ` (shards held elsewhere after ${shardsMs === undefined ? 'never' : `${(shardsMs / 1000).toFixed(2)} s`}; ${failover.kill?.turnsAnswered ?? 0} of ${failover.kill?.interrupted ?? 0} interrupted turns answered again)`,
    );
    console.log(
      `(${CONVERSATIONS} one-turn conversations a round, ${CONCURRENCY} at a time, ${SHARDS} Discord shard(s); ${new Date().toISOString()})`,
    );
  } finally {
    for (const launched of clusters.values())
      await launched.close().catch((error: unknown) => console.error(`cleanup: ${String(error)}`));
    server?.stop();
  }
}

await main();
