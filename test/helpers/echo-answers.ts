/**
 * Scripted answers for tests with many concurrent turns: the fake LLM answers each request with `answer to <tag>`,
 * where `<tag>` is the `q-…` tag of the last user message, so answers can be counted per question. A turn resumed
 * after an interruption (its last user message is the resume prompt) answers the question before it, as a model would.
 */
import { RESUME_PROMPT } from '../../src/shared/interruption.js';
import type { FakeLlmServer, ScriptedResponse } from '../fakes/fake-llm-server.js';

const TAG = /\bq-[a-z0-9-]+\b/;

type ChatMessage = { role?: string; content?: unknown };

function userTexts(body: unknown): string[] {
  const messages = (body as { messages?: ChatMessage[] } | undefined)?.messages ?? [];
  return messages
    .filter((message) => message.role === 'user')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? '')));
}

/** The tag of the last user message in an OpenAI chat request body, or undefined. */
export function lastUserTag(body: unknown): string | undefined {
  return TAG.exec(userTexts(body).at(-1) ?? '')?.[0];
}

/** The tag of the question being answered: the last user message's, or for a resumed turn the one it resumes. */
export function askedTag(body: unknown): string | undefined {
  const texts = userTexts(body);
  const last = texts.at(-1);
  return TAG.exec((last?.includes(RESUME_PROMPT) === true ? texts.at(-2) : last) ?? '')?.[0];
}

/** Makes the fake LLM answer every unscripted request with `answer to <tag>`. */
export function answerByTag(llm: FakeLlmServer): void {
  llm.fallback = (body): ScriptedResponse => ({ text: `answer to ${askedTag(body) ?? 'untagged'}` });
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
