/**
 * What both bare benchmark bots do per message: the same streaming LLM request as Sandpiper through the openai SDK
 * (Sandpiper's own request body from the template file, with the bot's messages), showing the answer at the first
 * token and then at most every `editIntervalMs`, and once more when the stream ends.
 */
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

export interface BareAnswerLaunch {
  llmUrl: string;
  requestTemplateFile: string;
  editIntervalMs: number;
}

/** Shows the answer so far: `delta` is what was added since the last call, `content` the whole answer so far. */
export type Show = (delta: string, content: string) => Promise<void>;

/** Returns `answer(history, text, show)`: appends the user's text and the streamed answer to `history`. */
export function bareAnswerer(
  launch: BareAnswerLaunch,
): (history: ChatMessage[], text: string, show: Show) => Promise<void> {
  const template = JSON.parse(readFileSync(launch.requestTemplateFile, 'utf8')) as { messages: ChatMessage[] } & Record<
    string,
    unknown
  >;
  const system = template.messages.find((message) => message.role === 'system');
  const openai = new OpenAI({ apiKey: 'bench-key', baseURL: launch.llmUrl, maxRetries: 0 });
  return async (history, text, show) => {
    history.push({ role: 'user', content: text });
    const stream = await openai.chat.completions.create({
      ...template,
      messages: [...(system ? [system] : []), ...history],
      stream: true,
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let content = '';
    let shown = '';
    let posting: Promise<void> | undefined;
    let lastFlush = 0;
    const flush = async (): Promise<void> => {
      lastFlush = Date.now();
      const snapshot = content;
      await show(snapshot.slice(shown.length), snapshot);
      shown = snapshot;
    };
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content ?? '';
      if (!delta) continue;
      content += delta;
      if (posting === undefined && Date.now() - lastFlush >= launch.editIntervalMs)
        posting = flush().finally(() => (posting = undefined));
    }
    await posting;
    if (shown !== content) await flush();
    history.push({ role: 'assistant', content });
  };
}
