/** A scripted ModelProvider port fake: one stream script per call, every request recorded. */
import type {
  ModelCapabilities,
  ModelProvider,
  ModelRequest,
  ModelStreamPart,
} from '../../src/agent/providers/model-provider.js';

/** One call's script: the parts to yield, or an error to throw; `hang` waits for the abort after the parts. */
export type FakeModelScript =
  { parts: ModelStreamPart[]; hang?: boolean } | { error: Error } | ((request: ModelRequest) => ModelStreamPart[]);

export class FakeModelProvider implements ModelProvider {
  readonly id = 'fake';
  readonly requests: ModelRequest[] = [];
  private readonly scripts: FakeModelScript[] = [];

  constructor(
    private readonly caps: ModelCapabilities = { contextWindow: 128_000, maxOutputTokens: 4096, supportsVision: false },
    /** Used when the queue is empty (benchmarks); default: throw. */
    private readonly fallback?: FakeModelScript,
  ) {}

  enqueue(...scripts: FakeModelScript[]): void {
    this.scripts.push(...scripts);
  }

  get pending(): number {
    return this.scripts.length;
  }

  capabilities(): ModelCapabilities {
    return this.caps;
  }

  async *stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelStreamPart> {
    this.requests.push(request);
    const script = this.scripts.shift() ?? this.fallback;
    if (script === undefined) throw new Error('fake-model: no script left for this call');
    if ('error' in script) throw script.error;
    const parts = typeof script === 'function' ? script(request) : script.parts;
    for (const part of parts) {
      options.signal.throwIfAborted();
      yield part;
    }
    if (typeof script !== 'function' && script.hang === true) {
      await new Promise<never>((_, reject) => {
        const onAbort = (): void => reject(new DOMException('aborted', 'AbortError'));
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener('abort', onAbort, { once: true });
      });
    }
  }
}

/** Parts of a text answer. */
export function textParts(text: string, usage = { inputTokens: 10, outputTokens: 5 }): ModelStreamPart[] {
  return [
    { type: 'text-delta', text },
    { type: 'finish', finishReason: 'stop', usage },
  ];
}

/** Parts of a response that calls tools. */
export function toolCallParts(calls: Array<{ id: string; name: string; args: unknown }>): ModelStreamPart[] {
  return [
    ...calls.map((call) => ({
      type: 'tool-call' as const,
      call: { id: call.id, name: call.name, arguments: JSON.stringify(call.args) },
    })),
    { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 10, outputTokens: 5 } },
  ];
}
