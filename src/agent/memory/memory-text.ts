/** Text forms of memories: name normalisation, the tool's result lines, and the system-message block. */
import type { MemoryRow } from '../../storage/memory-store.js';
import { fenceUntrusted } from '../../shared/untrusted-fence.js';

/** Characters of content shown per memory in tool results and in the system message. */
export const SHOWN_CONTENT_CHARS = 500;

/** Lower-case, `-` and spaces to `_`, trimmed: `My-Key` → `my_key`. */
export function normalizeMemoryName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '_');
}

function shown(content: string): string {
  return content.length > SHOWN_CONTENT_CHARS ? `${content.slice(0, SHOWN_CONTENT_CHARS)}...` : content;
}

/** `  [type:scope] name — description`, the content (cut to 500 chars) on the next line, then who wrote it. */
export function formatMemoryLine(memory: MemoryRow): string {
  const description = memory.description ? ` — ${memory.description}` : '';
  return `  [${memory.type}:${memory.scope}] ${memory.name}${description}\n    ${shown(memory.content)}\n    (written by ${memory.author || 'unknown'})`;
}

/**
 * The `<memories>` block of the system message ('' when there is nothing to show): each memory fenced as data
 * (`untrusted-fence.ts`) naming its scope and who wrote it, since a memory may hold text a web page or a person planted.
 */
export function buildMemoryBlock(memories: readonly MemoryRow[]): string {
  if (memories.length === 0) return '';
  const fenced = memories.map((memory) =>
    fenceUntrusted(
      {
        source: 'memory',
        attributes: {
          name: memory.name,
          type: memory.type,
          scope: memory.scope,
          author: memory.author || 'unknown',
          ...(memory.description ? { description: memory.description } : {}),
        },
      },
      shown(memory.content),
    ),
  );
  return ['<memories>', ...fenced, '</memories>'].join('\n');
}

/** The line telling the model how many memories it can reach. */
export function memoryCountLine(count: number): string {
  const noun = count === 1 ? 'memory' : 'memories';
  return (
    `You have ${count} ${noun} in scope (the most relevant are shown above when any match this conversation). ` +
    "Use memory(action='search', query=...) or memory(action='list') to read the others, and memory(action='save', ...) " +
    'to keep something worth remembering for later conversations.'
  );
}
