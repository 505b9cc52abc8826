/**
 * The fake LLM's answers in the takeover fuzzer (bench/support/takeover-rounds.ts). Several questions are in flight at
 * once, so answers are chosen by the question a request is for, not by arrival order: the first request of a question
 * gets its round's script (a long stream, a bash call, or a short complete answer), any later one (the turn resumed by
 * the instance that took over) a plain recovery answer. Each question's requests are kept, to count re-asks and to
 * check what the resumed request carried.
 */
import type { ScriptedResponse } from '../../test/fakes/fake-llm-server.js';

export type QuestionKind = 'stream' | 'tool' | 'answered';

const TAG = /takeover (stream|tool|answered) question (\d+)/;

export const question = (kind: QuestionKind, round: number): string => `takeover ${kind} question ${round}`;
/** The answer a resumed turn gets. */
export const recoveryAnswer = (kind: QuestionKind, round: number): string => `answer of ${kind} round ${round}`;
/** The words the mid-stream question streams (slowly: the kill lands somewhere in them). */
export const streamWords = (round: number): string[] => Array.from({ length: 100 }, (_, i) => `w${round}x${i} `);
/** The complete answer of the "answered" question (shown before the kill on even rounds). */
export const answerWords = (round: number): string[] => Array.from({ length: 20 }, (_, i) => `a${round}x${i} `);
/** The `sleep` argument of the round's bash call, unique so the fuzzer can find the process. */
export const sleepMarker = (round: number): string => `91.${String(1000 + round)}`;

export class TakeoverScript {
  private readonly bodies = new Map<string, string[]>();

  /** The fake LLM's `fallback`: the answer for this request body. */
  respond(body: unknown): ScriptedResponse {
    const text = JSON.stringify(body ?? {});
    const match = TAG.exec(text);
    if (match === null) return { text: 'ok' };
    const kind = match[1] as QuestionKind;
    const round = Number(match[2]);
    const key = question(kind, round);
    const seen = this.bodies.get(key) ?? [];
    seen.push(text);
    this.bodies.set(key, seen);
    return seen.length === 1 ? firstAnswer(kind, round) : { text: recoveryAnswer(kind, round) };
  }

  /** The request bodies sent for one question, in order. */
  requests(kind: QuestionKind, round: number): string[] {
    return this.bodies.get(question(kind, round)) ?? [];
  }
}

function firstAnswer(kind: QuestionKind, round: number): ScriptedResponse {
  if (kind === 'stream') return { text: streamWords(round), delayMs: 60 };
  if (kind === 'answered')
    // Even rounds: the stream hangs after its stop reason, so the kill lands right after the final edit.
    return { text: answerWords(round), delayMs: 10, ...(round % 2 === 0 ? { hangAfterStop: true } : {}) };
  const command = `echo start >> runs.log; sleep ${sleepMarker(round)}; echo end >> runs.log`;
  return { toolCalls: [{ id: `call_r${round}`, name: 'bash', arguments: JSON.stringify({ command }) }] };
}
