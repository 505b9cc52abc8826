/** Escaping for text we echo into Discord: mentions made inert and Markdown control characters escaped. */
import { escapeMentions } from '../format/escape-mentions.js';

/** Escapes Discord Markdown control characters in plain text (names shown in titles and fields). */
export function escapeDiscordMarkdown(text: string): string {
  return escapeMentions(text).replace(/([\\*_~`|>#[\]()-])/g, '\\$1');
}
