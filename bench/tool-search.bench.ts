/**
 * Benchmark: one `tool_search` call over 1,000 deferred MCP tools through the workstream's real path (list the
 * catalog, partition, search the cached index, expand), next to a bare BM25 search on a prebuilt index (the
 * floor) and a search that rebuilds the index every time (what every query cost before the cache).
 * Rounds are interleaved; figures are medians of the per-round medians.
 */
import { Bm25Index } from '../src/agent/search/bm25.js';
import { DeferredToolIndex } from '../src/agent/search/deferred-index.js';
import { partitionTools, searchDeferred } from '../src/agent/search/tool-search.js';
import { WorkstreamToolSearch } from '../src/agent/search/workstream-tool-search.js';
import type { ToolDefinition } from '../src/agent/tools/tool.js';
import { toolContext } from '../test/fakes/mcp-servers.js';

const TOOLS = Number(process.argv.find((a) => a.startsWith('--tools='))?.slice(8) ?? 1000);
const ROUNDS = 15;
const QUERIES_PER_ROUND = 200;
const VERBS = ['create', 'list', 'get', 'update', 'delete', 'search', 'sync', 'export', 'import', 'archive'];
const NOUNS = [
  'issue',
  'pull request',
  'file',
  'message',
  'channel',
  'user',
  'ticket',
  'page',
  'record',
  'event',
  'invoice',
  'deployment',
];
const QUERIES = [
  'create issue',
  'list pull request',
  'search message channel',
  'delete file',
  'export invoice records',
  'deploy kubernetes',
];

function catalog(): ToolDefinition[] {
  return Array.from({ length: TOOLS }, (_, i) => {
    const verb = VERBS[i % VERBS.length] as string;
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length] as string;
    return {
      name: `mcp__server${i % 25}__${verb}_${noun.replace(' ', '_')}_${i}`,
      description: `${verb[0]?.toUpperCase()}${verb.slice(1)} a ${noun} in workspace ${i % 40}. Returns the ${noun} as JSON with its id, title and owner.`,
      parameters: { type: 'object', properties: { id: { type: 'string' } } },
      agent: false,
      taskAgent: false,
      autoApprove: false,
    };
  });
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function timeEach(count: number, run: (i: number) => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    run(i);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function timeEachAsync(count: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await run(i);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function main(): Promise<void> {
  const tools = catalog();
  const deferred = partitionTools(tools).deferred;
  const prebuilt = new Bm25Index(deferred.map((tool) => `${tool.name} ${tool.description}`));
  const settings = { mode: 'on' as const, threshold: 20, maxResults: 5 };
  // The catalog a workstream lists is a fresh array each time (as the MCP tool source returns it).
  const listAll = (): Promise<ToolDefinition[]> => Promise.resolve([...tools]);
  const context = toolContext();
  const rows = { bare: [] as number[], sandpiper: [] as number[], rebuild: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    rows.bare.push(timeEach(QUERIES_PER_ROUND, (i) => prebuilt.search(QUERIES[i % QUERIES.length] as string, 5)));
    rows.sandpiper.push(
      await timeEachAsync(QUERIES_PER_ROUND, (i) =>
        new WorkstreamToolSearch(settings, listAll).callTool(
          'tool_search',
          { query: QUERIES[i % QUERIES.length] },
          context,
        ),
      ),
    );
    rows.rebuild.push(
      timeEach(20, (i) =>
        searchDeferred(deferred, QUERIES[i % QUERIES.length] as string, 5, new Set(), new DeferredToolIndex()),
      ),
    );
  }
  const bare = median(rows.bare);
  console.log(
    `tool search over ${deferred.length} deferred tools: ${ROUNDS} interleaved rounds (${QUERIES_PER_ROUND} queries each), median ms per query`,
  );
  console.log('path                                     | ms/query | × prebuilt');
  for (const [label, values] of [
    ['bare BM25 search, prebuilt index', rows.bare],
    ['sandpiper tool_search (cached index)', rows.sandpiper],
    ['index rebuilt per query (before)', rows.rebuild],
  ] as const) {
    const ms = median(values);
    console.log(`${label.padEnd(40)} | ${ms.toFixed(3).padStart(8)} | ${(ms / bare).toFixed(2)}`);
  }
}

await main();
