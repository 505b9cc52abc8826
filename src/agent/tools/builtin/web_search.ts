/** The `web_search` tool: a Tavily search returning an answer and titled, linked excerpts. */
import { z } from 'zod';
import { safeParseJson } from '../../../shared/json.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

export const TAVILY_SEARCH_URL = 'https://api.tavily.com/search';
const TOPICS = new Set(['general', 'news', 'finance']);

export interface WebSearchHandlerOptions {
  /** `tools.tavily_api_key`; without it the tool explains how to configure it. */
  apiKey?: string;
  /** Endpoint override (tests use a local fake). */
  endpoint?: string;
  /** Time limit when the context has none (default 30 s). */
  defaultTimeoutMs?: number;
}

const tavilyResponseSchema = z.looseObject({
  answer: z.string().nullish(),
  results: z
    .array(z.looseObject({ title: z.string().nullish(), url: z.string().nullish(), content: z.string().nullish() }))
    .nullish(),
});

const NOT_CONFIGURED =
  'Error: web search is not configured on this gateway (no Tavily API key: set tools.tavily_api_key or TAVILY_API_KEY). Use web_fetch with a known URL instead.';

function readArgs(args: Record<string, unknown>): { query: string; maxResults: number; topic: string } {
  const query = typeof args['query'] === 'string' ? args['query'].trim() : '';
  const requested = Number(args['max_results'] ?? 5);
  const maxResults = Number.isFinite(requested) ? Math.min(20, Math.max(1, Math.trunc(requested))) : 5;
  const topic = typeof args['topic'] === 'string' && TOPICS.has(args['topic']) ? args['topic'] : 'general';
  return { query, maxResults, topic };
}

function prepare(args: Record<string, unknown>, options: WebSearchHandlerOptions): ToolPreparation {
  const { query, maxResults, topic } = readArgs(args);
  const fail = (header: string, error: string): ToolPreparation => ({
    header: `✗ web_search: ${header}`,
    preview: '',
    needsApproval: false,
    approvalLabel: 'web_search',
    error,
  });
  if (query === '') return fail('no query', 'Error: no query provided');
  if (options.apiKey === undefined || options.apiKey === '') return fail('not configured', NOT_CONFIGURED);
  return {
    header: `⚙ web_search: ${query.slice(0, 80)}`,
    preview: `${query}\n(${maxResults} results, topic ${topic})`,
    needsApproval: true,
    approvalLabel: 'web_search',
  };
}

/** Formats Tavily's answer and results the way the model reads them. */
export function formatSearchResults(query: string, data: z.infer<typeof tavilyResponseSchema>): string {
  const parts: string[] = [];
  if (data.answer) parts.push(`Answer: ${data.answer}`);
  const results = data.results ?? [];
  if (results.length > 0) {
    parts.push(
      results
        .map(
          (result, index) =>
            `${index + 1}. [${result.title ?? '(untitled)'}](${result.url ?? ''})\n   ${(result.content ?? '').slice(0, 500)}`,
        )
        .join('\n'),
    );
  }
  return parts.length === 0 ? `No results for '${query}'.` : parts.join('\n\n');
}

async function execute(
  args: Record<string, unknown>,
  context: ToolContext,
  options: WebSearchHandlerOptions,
): Promise<ToolResult> {
  const prepared = prepare(args, options);
  if (prepared.error !== undefined) return { output: prepared.error, isError: true };
  const { query, maxResults, topic } = readArgs(args);
  const timeoutMs = context.timeoutMs > 0 ? context.timeoutMs : (options.defaultTimeoutMs ?? 30_000);
  let response: Response;
  try {
    response = await fetch(options.endpoint ?? TAVILY_SEARCH_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey ?? ''}` },
      body: JSON.stringify({ query, max_results: maxResults, topic, include_answer: true }),
      signal: AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    context.signal.throwIfAborted();
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return { output: `Tavily search failed: ${timedOut ? 'timed out' : 'network error'}`, isError: true };
  }
  const body = await response.text();
  if (!response.ok) return { output: `Tavily search failed: HTTP ${response.status}`, isError: true };
  const json = safeParseJson(body);
  const parsed = json.ok ? tavilyResponseSchema.safeParse(json.value) : undefined;
  if (parsed === undefined || !parsed.success)
    return { output: 'Tavily search failed: unexpected response', isError: true };
  return { output: formatSearchResults(query, parsed.data), isError: false };
}

/** Creates the `web_search` handler with the configured key and endpoint. */
export function createWebSearchHandler(options: WebSearchHandlerOptions = {}): ToolHandler {
  return {
    name: 'web_search',
    prepare: (args) => prepare(args, options),
    execute: (args, context) => execute(args, context, options),
  };
}
