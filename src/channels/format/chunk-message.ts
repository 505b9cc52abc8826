/** Splits long text into platform-sized messages without breaking code fences (fixes the reference's chunker). */

const FENCE = '```';
const CLOSE = '\n```';
const OPENER = /^```[\w+#.-]{0,20}$/;

interface FenceState {
  open: boolean;
  /** The line that opened the current block (e.g. "```ts"), reused to reopen it in the next chunk. */
  opener: string;
}

/**
 * Splits `text` into chunks of at most `max` characters. Prefers newlines, then spaces, then hard splits; a chunk
 * that ends inside a fenced block is closed with ``` and the next chunk reopens it, so every chunk renders as
 * valid Markdown. Always terminates: every round consumes at least one character of the input.
 */
export function chunkMessage(text: string, max: number): string[] {
  if (max < 1) throw new RangeError('max must be positive');
  if (text.length <= max) return [text];
  const fenced = text.includes(FENCE);
  const chunks: string[] = [];
  const state: FenceState = { open: false, opener: FENCE };
  let rest = text;
  while (rest.length > 0) {
    const prefix = state.open ? reopenPrefix(state.opener, max) : '';
    if (prefix.length + rest.length <= max) {
      chunks.push(prefix + rest);
      break;
    }
    const reserve = fenced && max > CLOSE.length ? CLOSE.length : 0;
    const budget = Math.max(1, max - prefix.length - reserve);
    const cut = chooseCut(rest, budget);
    const piece = rest.slice(0, cut);
    if (fenced) scanFences(piece, state);
    chunks.push(prefix + piece + (state.open && reserve > 0 ? CLOSE : ''));
    rest = stripLeadingNewlines(rest.slice(cut));
  }
  return chunks;
}

function reopenPrefix(opener: string, max: number): string {
  const candidate = `${opener}\n`;
  if (candidate.length + CLOSE.length < max) return candidate;
  return `${FENCE}\n`.length + CLOSE.length < max ? `${FENCE}\n` : '';
}

/** Index to cut at within the first `budget` characters: last newline, else last space, else a hard cut. */
function chooseCut(rest: string, budget: number): number {
  const window = rest.slice(0, budget);
  let cut = window.lastIndexOf('\n');
  if (cut <= 0) cut = window.lastIndexOf(' ');
  if (cut <= 0) cut = budget;
  // Never split inside a run of backticks: it would create or destroy a fence marker.
  while (cut > 1 && rest[cut - 1] === '`' && rest[cut] === '`') cut -= 1;
  if (cut > 0 && rest[cut - 1] === '`' && rest[cut] === '`') cut = budget;
  return Math.max(1, cut);
}

function scanFences(piece: string, state: FenceState): void {
  let index = piece.indexOf(FENCE);
  while (index !== -1) {
    if (state.open) {
      state.open = false;
    } else {
      state.open = true;
      const lineEnd = piece.indexOf('\n', index);
      const line = piece.slice(index, lineEnd === -1 ? piece.length : lineEnd).trim();
      state.opener = OPENER.test(line) ? line : FENCE;
    }
    index = piece.indexOf(FENCE, index + FENCE.length);
  }
}

function stripLeadingNewlines(text: string): string {
  let start = 0;
  while (start < text.length && text[start] === '\n') start += 1;
  return text.slice(start);
}
