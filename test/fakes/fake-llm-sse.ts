/** SSE frame builders for the fake LLM server: OpenAI Chat Completions chunks and Anthropic Messages events. */

/** One scripted tool call; `arguments` is sent raw (it may be malformed JSON on purpose). */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: string;
}

export type ScriptedFinish = 'stop' | 'length' | 'tool-calls' | 'content-filter';

/** One scripted model response, consumed by exactly one request. */
export interface ScriptedResponse {
  /** Answer text; an array is sent as one delta per element. */
  text?: string | string[];
  /** Reasoning/thinking text; an array is sent as one delta per element. */
  reasoning?: string | string[];
  /** Anthropic: signature of the thinking block (default `sig-fake-<n>`). */
  thinkingSignature?: string;
  /** OpenAI: field carrying reasoning deltas (vLLM/DeepSeek `reasoning_content`, llama.cpp/OpenRouter `reasoning`). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  toolCalls?: ScriptedToolCall[];
  /** Neutral finish reason; default `tool-calls` when toolCalls are present, else `stop`. */
  finishReason?: ScriptedFinish;
  /** Vendor finish/stop reason sent verbatim (overrides finishReason). */
  rawFinishReason?: string;
  usage?: { inputTokens: number; outputTokens: number };
  /** Answer with this HTTP error status instead of a stream (e.g. 401, 429, 500). */
  status?: number;
  /** With `status`: `retry-after` header in seconds. */
  retryAfter?: number;
  /** With `status`: `retry-after-ms` header. */
  retryAfterMs?: number;
  /** With `status`: error message in the body. */
  errorMessage?: string;
  /** With `status`: the error `type` in the body (default by status, e.g. `invalid_request_error` for an Anthropic 400). */
  errorType?: string;
  /** With `status`, OpenAI only: the error `code` (e.g. `context_length_exceeded`). */
  errorCode?: string;
  /** With `status`, OpenAI only: the error `param` (e.g. `messages`). */
  errorParam?: string;
  /** Stream the text deltas, then keep the connection open forever: a stream stalled mid-answer (cancel, idle timeout). */
  hang?: boolean;
  /** Read the request and never answer, not even the headers: a request hanging before headers (first-token timeout). */
  hangBeforeHeaders?: boolean;
  /**
   * Send everything up to and including the stop reason (OpenAI's `finish_reason` chunk, Anthropic's `message_delta`),
   * then keep the connection open: the answer is complete and shown, the usage and the stream's end never come (a kill
   * right after the final edit of a complete answer).
   */
  hangAfterStop?: boolean;
  /** Send the text deltas, then destroy the socket mid-stream (for "no retry after output" tests). */
  breakAfterText?: boolean;
  /** Delay before each SSE frame, in milliseconds. */
  delayMs?: number;
  /**
   * A server-side web search before the text: Anthropic streams a `server_tool_use` and a `web_search_tool_result`
   * block; OpenAI (search models) streams the results as `url_citation` annotations.
   */
  webSearch?: { query: string; results: Array<{ url: string; title: string }> };
}

export interface SseFrame {
  event?: string;
  data: unknown;
}

function asChunks(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Splits a string in two halves so arguments arrive in several deltas. */
function halves(text: string): string[] {
  if (text.length < 2) return [text];
  const mid = Math.floor(text.length / 2);
  return [text.slice(0, mid), text.slice(mid)];
}

function finishOf(script: ScriptedResponse): ScriptedFinish {
  return script.finishReason ?? ((script.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop');
}

const OPENAI_FINISH: Record<ScriptedFinish, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
};

const ANTHROPIC_FINISH: Record<ScriptedFinish, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
};

/** Frames of one OpenAI streaming response; `textFrames` counts the leading frames up to the last text delta. */
export function openAiFrames(
  script: ScriptedResponse,
  seq: number,
  model: string,
  includeUsage: boolean,
): { frames: SseFrame[]; textFrames: number; stopFrames: number } {
  const base = {
    id: `chatcmpl-fake${seq}`,
    object: 'chat.completion.chunk',
    created: 1700000000,
    model,
    system_fingerprint: null,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): SseFrame => ({
    data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] },
  });
  const frames: SseFrame[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  const field = script.reasoningField ?? 'reasoning_content';
  for (const piece of asChunks(script.reasoning)) frames.push(chunk({ [field]: piece }));
  for (const piece of asChunks(script.text)) frames.push(chunk({ content: piece }));
  if (script.webSearch !== undefined) {
    const annotations = script.webSearch.results.map((result) => ({
      type: 'url_citation',
      url_citation: { ...result, start_index: 0, end_index: 1 },
    }));
    frames.push(chunk({ annotations }));
  }
  const textFrames = frames.length;
  (script.toolCalls ?? []).forEach((call, index) => {
    const id = call.id ?? `call_fake${seq}_${index}`;
    frames.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const part of halves(call.arguments)) {
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  frames.push(chunk({}, script.rawFinishReason ?? OPENAI_FINISH[finishOf(script)]));
  const stopFrames = frames.length;
  if (includeUsage) {
    const usage = script.usage ?? { inputTokens: 10, outputTokens: 5 };
    frames.push({
      data: {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.inputTokens,
          completion_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
        },
      },
    });
  }
  frames.push({ data: '[DONE]' });
  return { frames, textFrames, stopFrames };
}

function anthropicBlock(index: number, block: Record<string, unknown>, deltas: Record<string, unknown>[]): SseFrame[] {
  return [
    { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: block } },
    ...deltas.map((delta) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ];
}

/** A server tool call and its result, as Anthropic streams a web search; returns the next block index. */
function anthropicWebSearch(
  frames: SseFrame[],
  index: number,
  seq: number,
  search: NonNullable<ScriptedResponse['webSearch']>,
): number {
  const id = `srvtoolu_fake${seq}`;
  const input = [{ type: 'input_json_delta', partial_json: JSON.stringify({ query: search.query }) }];
  frames.push(...anthropicBlock(index, { type: 'server_tool_use', id, name: 'web_search', input: {} }, input));
  const content = search.results.map((result) => ({
    type: 'web_search_result',
    ...result,
    encrypted_content: `enc-${seq}`,
    page_age: null,
  }));
  frames.push(...anthropicBlock(index + 1, { type: 'web_search_tool_result', tool_use_id: id, content }, []));
  return index + 2;
}

/** Frames of one Anthropic streaming response; `textFrames` counts the leading frames up to the text block's end. */
export function anthropicFrames(
  script: ScriptedResponse,
  seq: number,
  model: string,
): { frames: SseFrame[]; textFrames: number; stopFrames: number } {
  const usage = script.usage ?? { inputTokens: 10, outputTokens: 5 };
  const frames: SseFrame[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: `msg_fake${seq}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.inputTokens,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  let index = 0;
  const reasoning = asChunks(script.reasoning);
  if (reasoning.length > 0) {
    const deltas: Record<string, unknown>[] = reasoning.map((thinking) => ({ type: 'thinking_delta', thinking }));
    deltas.push({ type: 'signature_delta', signature: script.thinkingSignature ?? `sig-fake-${seq}` });
    frames.push(...anthropicBlock(index++, { type: 'thinking', thinking: '', signature: '' }, deltas));
  }
  if (script.webSearch !== undefined) index = anthropicWebSearch(frames, index, seq, script.webSearch);
  const text = asChunks(script.text);
  if (text.length > 0) {
    const deltas = text.map((piece) => ({ type: 'text_delta', text: piece }));
    frames.push(...anthropicBlock(index++, { type: 'text', text: '' }, deltas).slice(0, -1));
  }
  const textFrames = frames.length;
  if (text.length > 0)
    frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index: index - 1 } });
  (script.toolCalls ?? []).forEach((call, n) => {
    const id = call.id ?? `toolu_fake${seq}_${n}`;
    const deltas = ['', ...halves(call.arguments)].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    frames.push(...anthropicBlock(index++, { type: 'tool_use', id, name: call.name, input: {} }, deltas));
  });
  frames.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: script.rawFinishReason ?? ANTHROPIC_FINISH[finishOf(script)], stop_sequence: null },
      usage: { output_tokens: usage.outputTokens },
    },
  });
  const stopFrames = frames.length;
  frames.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return { frames, textFrames, stopFrames };
}

/** Serialises one frame as SSE text. */
export function encodeFrame(frame: SseFrame): string {
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
  return `${frame.event === undefined ? '' : `event: ${frame.event}\n`}data: ${data}\n\n`;
}

/** Optional fields of an error body. */
export interface ErrorBodyFields {
  type?: string;
  code?: string;
  param?: string;
}

function defaultErrorType(vendor: 'openai' | 'anthropic', status: number): string {
  if (vendor === 'openai')
    return status === 429 ? 'rate_limit_exceeded' : status === 400 ? 'invalid_request_error' : 'server_error';
  if (status === 400) return 'invalid_request_error';
  return status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error';
}

/** Vendor-shaped JSON error body. */
export function errorBody(
  vendor: 'openai' | 'anthropic',
  status: number,
  message: string,
  fields: ErrorBodyFields = {},
): unknown {
  const type = fields.type ?? defaultErrorType(vendor, status);
  if (vendor === 'openai') return { error: { message, type, code: fields.code ?? null, param: fields.param ?? null } };
  return { type: 'error', error: { type, message } };
}
