/**
 * Scripted answers for tests with many concurrent turns: the fake LLM answers each request with `answer to <tag>`,
 * where `<tag>` is the `q-…` tag of the last user message, so answers can be counted per question.
 */
import type { FakeLlmServer, ScriptedResponse } from '../fakes/fake-llm-server.js';

const TAG = /\bq-[a-z0-9-]+\b/;

/** The tag of the last user message in an OpenAI chat request body, or undefined. */
export function lastUserTag(body: unknown): string | undefined {
  const messages = (body as { messages?: Array<{ role?: string; content?: unknown }> } | undefined)?.messages ?? [];
  const last = messages.filter((message) => message.role === 'user').at(-1);
  const content = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return TAG.exec(content)?.[0];
}

/** Makes the fake LLM answer every unscripted request with `answer to <tag>`. */
export function answerByTag(llm: FakeLlmServer): void {
  llm.fallback = (body): ScriptedResponse => ({ text: `answer to ${lastUserTag(body) ?? 'untagged'}` });
}

/** How many times each tag was answered, from the texts the bot posted. */
export function answerCounts(texts: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) {
    const tag = /^answer to (q-[a-z0-9-]+)$/.exec(text.trim())?.[1];
    if (tag) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
  return counts;
}

/** Lost and duplicated questions among `tags`, given the answer counts. */
export function tally(tags: readonly string[], counts: Map<string, number>): { lost: string[]; duplicated: string[] } {
  return { lost: tags.filter((tag) => !counts.has(tag)), duplicated: tags.filter((tag) => (counts.get(tag) ?? 0) > 1) };
}
