/** The system message: date, working directory, tool guidance, configured instructions, and sections from plug-ins. */
import { UNTRUSTED_FENCE_GUIDANCE } from '../shared/untrusted-fence.js';
import { contentText, type Message } from './messages.js';

/** What a section provider may use to build its part of the system message. */
export interface SystemPromptContext {
  wsId: string;
  ownerUserId: string;
  cwd: string;
  /** Text of the latest user message (for relevance-ranked sections such as memories). */
  lastUserText: string;
  /** Text of the most recent user messages, newest first (at least the last three when there are that many). */
  recentUserTexts?: readonly string[];
  /** The workstream's history as the next model call sends it (read only). */
  history?: readonly Message[];
  signal: AbortSignal;
}

/**
 * Contributes one section (MCP catalogs, memories, templates). Returns undefined or '' to add nothing.
 * Called before every model call; must be quick and honour `signal`. A throw drops the section for that call.
 */
export type SystemPromptSection = (context: SystemPromptContext) => string | undefined | Promise<string | undefined>;

const TOOL_GUIDANCE = [
  'You are a capable assistant working in a chat thread. You act through tool calls rather than describing what you would do.',
  'How to pick tools:',
  '- To change an existing file, read it with read_file first, then change it with edit_file.',
  '- To create a file, use write_file.',
  '- To find text or files across the project, use search.',
  '- For shell commands, git, builds and tests, use bash (it runs in the working directory below).',
  '- To get a web page, use web_fetch; to look something up on the web, use web_search; for command documentation, use man.',
  '- To keep a fact or preference for later conversations, use memory (save); to find what was said or done in earlier conversations, use recall.',
  "Some tool calls need the user's approval; if a call is denied, do not retry it unchanged: ask what the user wants instead.",
  'Keep answers short and concrete. Quote paths, commands and identifiers exactly.',
  UNTRUSTED_FENCE_GUIDANCE,
].join('\n');

/** Assembles the single system message (one `system` message only: some chat templates reject more). */
export function buildSystemPrompt(input: {
  now: Date;
  cwd: string;
  instructions: string;
  sections: readonly string[];
}): string {
  const parts = [
    TOOL_GUIDANCE,
    '',
    `Current date: ${input.now.toISOString().slice(0, 10)} (UTC).`,
    `Working directory: ${input.cwd}`,
  ];
  const instructions = input.instructions.trim();
  if (instructions) parts.push('', instructions);
  for (const section of input.sections) {
    if (section.trim()) parts.push('', section.trim());
  }
  return parts.join('\n');
}

/** Runs every section provider; failures are reported through `onError` and skipped. */
export async function collectSections(
  providers: readonly SystemPromptSection[],
  context: SystemPromptContext,
  onError: (error: unknown) => void,
): Promise<string[]> {
  const results = await Promise.all(
    providers.map(async (provider) => {
      try {
        return (await provider(context)) ?? '';
      } catch (error) {
        context.signal.throwIfAborted();
        onError(error);
        return '';
      }
    }),
  );
  return results.filter((text) => text !== '');
}

/** Text of the last `count` user messages, newest first. */
export function recentUserMessages(history: readonly Message[], count: number): string[] {
  const texts: string[] = [];
  for (let index = history.length - 1; index >= 0 && texts.length < count; index--) {
    const message = history[index];
    if (message?.role === 'user') texts.push(contentText(message.content));
  }
  return texts;
}
