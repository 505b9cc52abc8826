/** Converts Anthropic Messages stream events into ModelStreamParts, keeping raw blocks (thinking signatures) for replay. */
import type { MessageDeltaUsage, RawContentBlockDelta, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ToolCall, Usage } from '../../messages.js';
import { connectionProviderError } from '../provider-errors.js';
import type { FinishReason, ModelStreamPart } from '../model-provider.js';
import { parseToolInput } from './to-anthropic-messages.js';

type StartUsage = Extract<RawMessageStreamEvent, { type: 'message_start' }>['message']['usage'];

type RawBlock = Record<string, unknown>;

/** Maps an Anthropic stop reason to the neutral finish reason. */
export function mapAnthropicStop(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
    case null:
    case undefined:
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Raw blocks are worth replaying only when they hold more than plain text and tool calls. */
function needsReplay(blocks: readonly RawBlock[]): boolean {
  return blocks.some((block) => (block['type'] !== 'text' && block['type'] !== 'tool_use') || block['citations'] !== undefined);
}

class StreamState {
  readonly blocks: RawBlock[] = [];
  readonly json = new Map<number, string>();
  inputTokens = 0;
  outputTokens = 0;
  cachedTokens = 0;
  stopReason: string | null | undefined;
  isStopped = false;

  #applyStartUsage(usage: StartUsage): void {
    this.inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
    this.outputTokens = usage.output_tokens;
    this.cachedTokens = usage.cache_read_input_tokens ?? 0;
  }

  #applyDeltaUsage(usage: MessageDeltaUsage): void {
    const input = usage.input_tokens;
    if (input === null || input === undefined) return;
    const total = input + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
    this.inputTokens = Math.max(this.inputTokens, total);
    this.cachedTokens = Math.max(this.cachedTokens, usage.cache_read_input_tokens ?? 0);
  }

  /** Applies one delta to its raw block; returns the part to yield, if any. */
  applyDelta(index: number, delta: RawContentBlockDelta): ModelStreamPart | undefined {
    const block = this.blocks[index] ?? {};
    switch (delta.type) {
      case 'text_delta':
        block['text'] = `${String(block['text'] ?? '')}${delta.text}`;
        return delta.text === '' ? undefined : { type: 'text-delta', text: delta.text };
      case 'thinking_delta':
        block['thinking'] = `${String(block['thinking'] ?? '')}${delta.thinking}`;
        return delta.thinking === '' ? undefined : { type: 'reasoning-delta', text: delta.thinking };
      case 'signature_delta':
        block['signature'] = `${String(block['signature'] ?? '')}${delta.signature}`;
        return undefined;
      case 'input_json_delta':
        this.json.set(index, `${this.json.get(index) ?? ''}${delta.partial_json}`);
        return undefined;
      case 'citations_delta': {
        const citations = Array.isArray(block['citations']) ? (block['citations'] as unknown[]) : [];
        block['citations'] = [...citations, delta.citation];
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** Closes a block: tool input parsed into the raw block; a client tool_use becomes a tool call. */
  stopBlock(index: number): ToolCall | undefined {
    const block = this.blocks[index];
    if (block === undefined || !this.json.has(index)) return undefined;
    const raw = this.json.get(index) ?? '';
    block['input'] = raw.trim() === '' ? {} : parseToolInput(raw);
    if (block['type'] !== 'tool_use') return undefined;
    return { id: String(block['id'] ?? ''), name: String(block['name'] ?? '').trim(), arguments: raw.trim() === '' ? '{}' : raw };
  }

  apply(event: RawMessageStreamEvent): ModelStreamPart | undefined {
    switch (event.type) {
      case 'message_start':
        this.#applyStartUsage(event.message.usage);
        return undefined;
      case 'content_block_start':
        this.blocks[event.index] = structuredClone(event.content_block) as unknown as RawBlock;
        if (event.content_block.type === 'tool_use' || event.content_block.type === 'server_tool_use') this.json.set(event.index, '');
        return undefined;
      case 'content_block_delta':
        return this.applyDelta(event.index, event.delta);
      case 'content_block_stop': {
        const call = this.stopBlock(event.index);
        return call === undefined ? undefined : { type: 'tool-call', call };
      }
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.outputTokens = event.usage.output_tokens ?? this.outputTokens;
        this.#applyDeltaUsage(event.usage);
        // Every content block has closed before the message's stop reason arrives.
        return event.delta.stop_reason ? { type: 'text-end', finishReason: mapAnthropicStop(event.delta.stop_reason), ...this.replayData() } : undefined;
      case 'message_stop':
        this.isStopped = true;
        return undefined;
      default:
        return undefined;
    }
  }

  finish(): ModelStreamPart {
    const usage: Usage = { inputTokens: this.inputTokens, outputTokens: this.outputTokens };
    if (this.cachedTokens > 0) usage.cachedTokens = this.cachedTokens;
    return { type: 'finish', finishReason: mapAnthropicStop(this.stopReason), usage, ...this.replayData() };
  }

  /** The raw blocks (thinking with signatures) when they must be replayed; every block has closed by the stop reason. */
  private replayData(): { providerData?: unknown } {
    const blocks = this.blocks.filter((block) => block !== undefined);
    return needsReplay(blocks) ? { providerData: blocks } : {};
  }
}

/**
 * Yields text and thinking deltas as they arrive, each tool call when its block closes, `text-end` with the message's
 * stop reason, and one `finish` whose `providerData` holds the raw blocks (thinking with signatures) when they must be replayed.
 */
export async function* fromAnthropicStream(events: AsyncIterable<RawMessageStreamEvent>): AsyncGenerator<ModelStreamPart, void, undefined> {
  const state = new StreamState();
  for await (const event of events) {
    const part = state.apply(event);
    if (part !== undefined) yield part;
  }
  // A body that ends before message_stop is a cut stream, not a finished answer.
  if (!state.isStopped) throw connectionProviderError('anthropic', new Error('stream ended before message_stop'));
  yield state.finish();
}
