/**
 * Memory nudges (seed 000's metacognitive prompting): a short note added to the system message of the one model call
 * that follows a correction, a denied tool call, a resumed conversation or a wrap-up, suggesting the model save or
 * search memories. Nothing is stored: a nudge is part of that call's system message only. Bounded: each kind waits
 * `cooldownMs` per workstream, at most one nudge per call and `maxPerWorkstream` per workstream while it stays loaded.
 */
import { LRUCache } from 'lru-cache';
import type { MemoryStore } from '../../storage/memory-store.js';
import { contentText, type Message } from '../messages.js';
import type { SystemPromptContext, SystemPromptSection } from '../system-prompt.js';

export type NudgeKind = 'resume' | 'correction' | 'denial' | 'completion';

export const NUDGE_TEXT: Readonly<Record<NudgeKind, string>> = {
  resume:
    'Memory nudge: this conversation is continuing after a break. Before you go on, search your memories (memory, action "search") for what you saved about this user or task.',
  correction:
    'Memory nudge: the user may be correcting you. If the correction reflects a lasting preference or fact, save it with memory (type "feedback") so you do not repeat the mistake.',
  denial:
    'Memory nudge: the user denied a tool call. If that shows a lasting preference (something to avoid or to do differently), save it with memory.',
  completion:
    'Memory nudge: the user seems to be wrapping up. If you learned something worth keeping for later conversations, save it with memory now.',
};

const CORRECTION =
  /^(?:no[,.\s]|stop\b|actually[,\s]|instead[,\s]|wrong\b|i said\b|i meant\b|please don'?t\b)|\bdon'?t\b|\bdont\b|not like that|\bthat'?s not\b|\bthats not\b|\bnever\b.*\balways\b/i;
const COMPLETION = /^(?:thanks|thank you|perfect|great job|done\b|lgtm)|that'?s all|looks good|that works/i;
/** How a denied call's result starts (src/agent/turn/approve-tool-calls.ts). */
const DENIAL = /^Denied by user\b/;

export interface MemoryNudgeOptions {
  memories: Pick<MemoryStore, 'countVisible'>;
  /** Per workstream and kind (`memory.nudge_cooldown_s`). */
  cooldownMs: number;
  /** Nudges one loaded workstream gets at most. */
  maxPerWorkstream?: number;
  now?: () => number;
}

interface NudgeState {
  last: Map<NudgeKind, number>;
  count: number;
}

const DEFAULT_MAX_PER_WORKSTREAM = 10;

/** Messages since the model last answered: the new user message, or the results of its tool calls. */
function sinceLastAnswer(history: readonly Message[]): Message[] {
  let index = history.length;
  while (index > 0 && history[index - 1]?.role !== 'assistant') index--;
  return history.slice(index);
}

function hasPriorAnswer(history: readonly Message[]): boolean {
  return history.some((message) => message.role === 'assistant');
}

/** The events the new part of the history shows, in order of precedence (resume is decided by the caller). */
export function detectNudgeEvents(history: readonly Message[]): NudgeKind[] {
  if (!hasPriorAnswer(history)) return [];
  const fresh = sinceLastAnswer(history);
  const kinds: NudgeKind[] = [];
  const user = fresh.findLast((message) => message.role === 'user');
  const text = user === undefined ? '' : contentText(user.content).trim();
  if (text !== '' && CORRECTION.test(text)) kinds.push('correction');
  if (fresh.some((message) => message.role === 'tool' && DENIAL.test(contentText(message.content))))
    kinds.push('denial');
  if (text !== '' && COMPLETION.test(text)) kinds.push('completion');
  return kinds;
}

/** The section that adds at most one nudge per model call. */
export function createMemoryNudgeSection(options: MemoryNudgeOptions): SystemPromptSection {
  const now = options.now ?? Date.now;
  const max = options.maxPerWorkstream ?? DEFAULT_MAX_PER_WORKSTREAM;
  // Bounded like the loaded workstreams; an evicted one that comes back counts as resumed.
  const states = new LRUCache<string, NudgeState>({ max: 10_000 });

  const allowed = (state: NudgeState, kind: NudgeKind, at: number): boolean => {
    const last = state.last.get(kind);
    return state.count < max && (last === undefined || at - last >= options.cooldownMs);
  };

  return async (context: SystemPromptContext) => {
    const history = context.history ?? [];
    let state = states.get(context.wsId);
    const resumed = state === undefined && hasPriorAnswer(history);
    if (state === undefined) {
      state = { last: new Map(), count: 0 };
      states.set(context.wsId, state);
    }
    const at = now();
    const candidates = detectNudgeEvents(history);
    if (resumed) candidates.unshift('resume');
    for (const kind of candidates) {
      if (!allowed(state, kind, at)) continue;
      // Searching memories only helps when there are some to find.
      if (
        kind === 'resume' &&
        (await options.memories.countVisible({ wsId: context.wsId, userId: context.ownerUserId })) === 0
      )
        continue;
      state.last.set(kind, at);
      state.count++;
      return NUDGE_TEXT[kind];
    }
    return undefined;
  };
}
