/** Converts OpenAI Chat Completions stream chunks into ModelStreamParts (text, reasoning, whole tool calls, finish). */
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { newHexId } from '../../../shared/ids.js';
import type { ToolCall, Usage } from '../../messages.js';
import type { FinishReason, ModelStreamPart } from '../model-provider.js';

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/** Maps a Chat Completions finish reason; `stop` with tool calls (some local servers) counts as tool calls. */
export function mapOpenAIFinish(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'stop':
    case null:
    case undefined:
      return hasToolCalls ? 'tool-calls' : 'stop';
    default:
      return 'other';
  }
}

/** Reasoning text from the non-standard fields vLLM/DeepSeek (`reasoning_content`) and llama.cpp/OpenRouter (`reasoning`) add. */
function reasoningOf(delta: object): string {
  const record = delta as Record<string, unknown>;
  const value = record['reasoning_content'] ?? record['reasoning'];
  return typeof value === 'string' ? value : '';
}

/** Argument text of a delta; some local servers send the arguments as an object instead of JSON text. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : '';
}

/** Accumulates tool-call deltas by index; fields of the wrong type (garbled local servers) are ignored. */
function accumulateToolCalls(pending: Map<number, PendingCall>, deltas: ChatCompletionChunk.Choice.Delta['tool_calls']): void {
  if (!Array.isArray(deltas)) return;
  for (const delta of deltas) {
    // A delta without an index continues the latest call (servers that stream one call at a time).
    const index = typeof delta.index === 'number' ? delta.index : ([...pending.keys()].at(-1) ?? 0);
    const call = pending.get(index) ?? { id: '', name: '', arguments: '' };
    const id: unknown = delta.id;
    const name: unknown = delta.function?.name;
    if (typeof id === 'string' && id !== '') call.id = id;
    if (typeof name === 'string' && name !== '') call.name = name;
    call.arguments += argumentsText(delta.function?.arguments);
    pending.set(index, call);
  }
}

/**
 * Finished calls in index order, repaired the way local models need: missing ids are generated,
 * names trimmed, empty arguments become `{}`. Malformed JSON arguments are passed through raw.
 */
function finishedCalls(pending: Map<number, PendingCall>): ToolCall[] {
  return [...pending.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      id: call.id === '' ? `call_${newHexId(12)}` : call.id,
      name: call.name.trim(),
      arguments: call.arguments.trim() === '' ? '{}' : call.arguments,
    }));
}

/** The `url_citation` annotations a search model streams (Chat Completions `delta.annotations`), deduplicated by URL. */
class Citations {
  readonly #byUrl = new Map<string, string>();

  add(delta: object): void {
    const annotations = (delta as Record<string, unknown>)['annotations'];
    if (!Array.isArray(annotations)) return;
    for (const annotation of annotations as unknown[]) {
      const citation = (annotation as { url_citation?: { url?: unknown; title?: unknown } } | null)?.url_citation;
      if (typeof citation?.url !== 'string' || this.#byUrl.has(citation.url)) continue;
      this.#byUrl.set(citation.url, typeof citation.title === 'string' ? citation.title : '');
    }
  }

  /** `\n\nSources:` and one markdown link a line; '' without citations. */
  text(): string {
    if (this.#byUrl.size === 0) return '';
    const lines = [...this.#byUrl].map(([url, title]) => (title === '' ? `- ${url}` : `- [${title.replace(/[[\]]/g, '')}](${url})`));
    return `\n\nSources:\n${lines.join('\n')}`;
  }
}

/** The reasoning and text a delta carries. */
function deltaParts(delta: ChatCompletionChunk.Choice.Delta): ModelStreamPart[] {
  const parts: ModelStreamPart[] = [];
  const reasoning = reasoningOf(delta);
  if (reasoning !== '') parts.push({ type: 'reasoning-delta', text: reasoning });
  if (typeof delta.content === 'string' && delta.content !== '') parts.push({ type: 'text-delta', text: delta.content });
  return parts;
}

function usageOf(chunk: ChatCompletionChunk): Usage | undefined {
  const usage = chunk.usage;
  if (usage === undefined || usage === null) return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0, ...(cached > 0 ? { cachedTokens: cached } : {}) };
}

/**
 * Yields text and reasoning deltas as they arrive, `text-end` at the chunk carrying the finish reason (the usage chunk
 * and the stream's end follow it), then every tool call complete, then one `finish`.
 */
export async function* fromOpenAIStream(chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<ModelStreamPart, void, undefined> {
  const pending = new Map<number, PendingCall>();
  let finish: string | null | undefined;
  let usage: Usage | undefined;
  let ended = false;
  const citations = new Citations();
  for await (const chunk of chunks) {
    usage = usageOf(chunk) ?? usage;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    const finishing = choice.finish_reason !== null && choice.finish_reason !== undefined;
    if (finishing) finish = choice.finish_reason;
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta | undefined;
    if (delta !== undefined && delta !== null) {
      yield* deltaParts(delta);
      accumulateToolCalls(pending, delta.tool_calls);
      citations.add(delta);
    }
    if (finishing && !ended) {
      ended = true;
      // A search model's sources end the answer (the thread shows them; the stored answer keeps them).
      const sources = citations.text();
      if (sources !== '') yield { type: 'text-delta', text: sources };
      yield { type: 'text-end', finishReason: mapOpenAIFinish(finish, pending.size > 0) };
    }
  }
  const calls = finishedCalls(pending);
  for (const call of calls) yield { type: 'tool-call', call };
  yield { type: 'finish', finishReason: mapOpenAIFinish(finish, calls.length > 0), ...(usage === undefined ? {} : { usage }) };
}
