/** Length-limited text: keeps the start and marks the cut with an ellipsis. */

/** `text` unchanged when it fits, else its first `max - 1` characters plus `…` (exactly `max` long). */
export function truncate(text: string, max = 200): string {
  if (text.length <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  return `${text.slice(0, max - 1)}…`;
}
