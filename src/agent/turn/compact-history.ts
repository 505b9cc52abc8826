/** Compaction: summarize older messages through a model call so the conversation fits the context window again. */
import { describeError } from '../../shared/errors.js';
import { contentText, type Message } from '../messages.js';
import { estimateMessageTokens } from './estimate-tokens.js';
import type { TurnContext } from './turn-types.js';

/** Compact before a call once the estimate passes this share of the context window. */
export const AUTO_COMPACT_RATIO = 0.8;
/** Share of the window kept verbatim at the end of the history. */
const TAIL_RATIO = 0.25;

const COMPACTOR_PROMPT = [
  'You condense a conversation between a user and a tool-using assistant into notes that will replace it.',
  'Write dense Markdown with these sections, leaving out empty ones: ## Decisions, ## Files, ## Key code,',
  '## Tool results, ## Open tasks, ## User preferences. Keep names, paths, ids, numbers and commands exactly',
  'as written. Leave out dead ends and chatter. Output only the notes.',
].join('\n');

/** Index where the kept tail starts: never a tool message, a user message when one fits. */
export function chooseCut(history: readonly Message[], tailBudget: number): number | undefined {
  let tail = 0;
  let fallback: number | undefined;
  let preferred: number | undefined;
  for (let i = history.length - 1; i >= 1; i--) {
    const message = history[i] as Message;
    tail += estimateMessageTokens(message);
    if (message.role === 'tool') continue;
    if (fallback === undefined) fallback = i;
    if (tail > tailBudget) break;
    fallback = i;
    if (message.role === 'user') preferred = i;
  }
  return preferred ?? fallback;
}

function clip(text: string): string {
  return text.length > 2000 ? `${text.slice(0, 1000)}\n...[truncated]...\n${text.slice(-500)}` : text;
}

/** `ROLE: content` blocks; tool calls as `[Called: name(args)]`, results as `TOOL[name]`. */
export function formatForSummary(messages: readonly Message[], maxChars: number): string {
  const blocks: string[] = [];
  for (const message of messages) {
    let text = message.role === 'system' ? '' : clip(contentText(message.content));
    if (message.role === 'assistant' && message.toolCalls?.length) {
      text += `\n[Called: ${message.toolCalls.map((call) => `${call.name}(${call.arguments.slice(0, 300)})`).join(', ')}]`;
    }
    if (!text.trim()) continue;
    const label = message.role === 'tool' ? `TOOL[${message.name}]` : message.role.toUpperCase();
    blocks.push(`${label}: ${text}`);
  }
  const joined = blocks.join('\n\n');
  if (joined.length <= maxChars) return joined;
  const half = Math.floor(maxChars / 2);
  return `${joined.slice(0, half)}\n...[truncated]...\n${joined.slice(-half)}`;
}

function stripThinking(text: string): string {
  return text.replace(/<(think|reasoning)>[\s\S]*?(<\/(think|reasoning)>|$)/g, '').trim();
}

async function summarize(ctx: TurnContext, text: string): Promise<string> {
  const request = {
    model: ctx.model.model,
    messages: [
      { role: 'system' as const, content: COMPACTOR_PROMPT },
      { role: 'user' as const, content: `Compact the following conversation:\n\n${text}` },
    ],
    tools: [],
    maxTokens: Math.min(ctx.model.maxTokens, 4096),
    temperature: 0.3,
  };
  let summary = '';
  for await (const part of ctx.streamModel(ctx.model.provider, request, { signal: ctx.signal })) {
    if (part.type === 'text-delta') summary += part.text;
    if (part.type === 'finish' && part.usage) await ctx.host.addUsage(part.usage, ctx.model.model);
  }
  return stripThinking(summary);
}

/** Replaces older history with a summary (in memory and in the store). False when nothing could be compacted. */
export async function compactHistory(ctx: TurnContext): Promise<boolean> {
  const history = ctx.history;
  const cut = chooseCut(history, Math.floor(ctx.model.contextWindow * TAIL_RATIO));
  if (cut === undefined || cut < 1) return false;
  const prefix = history.slice(0, cut);
  const tail = history.slice(cut);
  const budgetChars = Math.max(2000, Math.floor(ctx.model.contextWindow * 0.5 * 4));
  let summary: string;
  try {
    summary = await summarize(ctx, formatForSummary(prefix, budgetChars));
  } catch (error) {
    ctx.signal.throwIfAborted();
    ctx.logger.warn({ wsId: ctx.wsId, err: describeError(error) }, 'compaction failed');
    return false;
  }
  if (!summary) return false;
  const lastUser = [...prefix].reverse().find((message) => message.role === 'user');
  if (lastUser && !tail.some((message) => message.role === 'user')) {
    const quoted = contentText(lastUser.content);
    summary += `\n\n## Continue\nThe user's latest request was: ${quoted.length > 500 ? `${quoted.slice(0, 400)}...` : quoted}\nCarry on with it.`;
  }
  const compacted: Message[] = [
    { role: 'user', content: '[Conversation summary]' },
    { role: 'assistant', content: summary },
    ...tail,
  ];
  history.splice(0, history.length, ...compacted);
  await ctx.host.replaceHistory(compacted);
  ctx.readFiles.clear();
  ctx.logger.info(
    { wsId: ctx.wsId, before: prefix.length + tail.length, after: compacted.length },
    'history compacted',
  );
  return true;
}
