/**
 * Which provider-native (server-side) tools a model gets: Anthropic's tool search with deferred loading and its web
 * search tool, OpenAI's web search for the Chat Completions search models. `auto` follows the tables below (matched on
 * the model name sent to the API, a vendor prefix ignored); `on` / `off` in `[models.<alias>]` override them. A model
 * without a native tool keeps the fallbacks: the BM25 `tool_search` and the Tavily `web_search`.
 */

export type NativeSetting = 'auto' | 'on' | 'off';

export interface NativeTools {
  /** Deferred tools are sent with `defer_loading` and the provider's tool-search tool (no client-side BM25 search). */
  toolSearch: boolean;
  /** The `web_search` function is replaced by the provider's web search (no Tavily call, no approval card). */
  webSearch: boolean;
}

interface NativeEntry {
  provider: 'openai' | 'anthropic';
  model: string;
  native_tool_search?: NativeSetting | undefined;
  native_web_search?: NativeSetting | undefined;
}

/** Anthropic models with the server-side tool search (`tool_search_tool_bm25_20251119`) and `defer_loading`. */
const ANTHROPIC_TOOL_SEARCH: readonly RegExp[] = [
  /^claude-(?:opus|sonnet)-4-[5-9]/,
  /^claude-(?:opus|sonnet|haiku)-(?:[5-9]|\d{2,})/,
  /^claude-[5-9]/,
];
/** Anthropic models with the web search server tool (`web_search_20250305`). */
const ANTHROPIC_WEB_SEARCH: readonly RegExp[] = [
  /^claude-3-7-sonnet/,
  /^claude-3-5-(?:sonnet|haiku)/,
  /^claude-(?:opus|sonnet|haiku)-(?:[4-9]|\d{2,})/,
  /^claude-[4-9]/,
];
/** OpenAI Chat Completions models that search the web themselves (`web_search_options`). */
const OPENAI_WEB_SEARCH: readonly RegExp[] = [/^gpt-4o(?:-mini)?-search-preview/, /^gpt-5(?:\.\d+)?-search-api/];

/** Strips `vendor/` and `vendor.` prefixes (`anthropic/claude-…`, Bedrock's `anthropic.claude-…`). */
function bareName(model: string): string {
  const lower = model.trim().toLowerCase();
  const name = lower.slice(lower.lastIndexOf('/') + 1);
  return name.replace(/^[a-z]+\.(?=claude|gpt)/, '');
}

function resolve(setting: NativeSetting | undefined, table: readonly RegExp[], model: string): boolean {
  if (setting === 'on') return true;
  if (setting === 'off') return false;
  const name = bareName(model);
  return table.some((pattern) => pattern.test(name));
}

/** The native tools of a `[models.<alias>]` entry. OpenAI's Chat Completions API has no deferred loading. */
export function resolveNativeTools(entry: NativeEntry): NativeTools {
  if (entry.provider === 'anthropic') {
    return {
      toolSearch: resolve(entry.native_tool_search, ANTHROPIC_TOOL_SEARCH, entry.model),
      webSearch: resolve(entry.native_web_search, ANTHROPIC_WEB_SEARCH, entry.model),
    };
  }
  return { toolSearch: false, webSearch: resolve(entry.native_web_search, OPENAI_WEB_SEARCH, entry.model) };
}
