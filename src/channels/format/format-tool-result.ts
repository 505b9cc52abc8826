/** Compact, fence-safe rendering of a tool's output for chat messages. */
import { truncate } from './truncate.js';

const MAX_LINES = 10;
const MAX_CHARS = 500;

/** Neutralises triple backticks so user-controlled text cannot open or close a code block. */
export function neutraliseFences(text: string): string {
  return text.replace(/```/g, '` ` `');
}

/** At most 10 lines and 500 characters of `output`, fences neutralised, wrapped in a code block. */
export function formatToolResult(output: string): string {
  const lines = output.split('\n');
  let body = lines.slice(0, MAX_LINES).join('\n');
  if (lines.length > MAX_LINES) body += '\n…';
  body = truncate(neutraliseFences(body), MAX_CHARS);
  return `\`\`\`\n${body}\n\`\`\``;
}
