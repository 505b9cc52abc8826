/** Text forms of memories: name normalisation, the tool's result lines, and the system-message block. */
import type { MemoryRow } from '../../storage/memory-store.js';

/** Characters of content shown per memory in tool results and in the system message. */
export const SHOWN_CONTENT_CHARS = 500;

/** Lower-case, `-` and spaces to `_`, trimmed: `My-Key` → `my_key`. */
export function normalizeMemoryName(name: string): string {
  return name.trim().toLowerCase().replace(/[-\s]+/g, '_');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function shown(content: string): string {
  return content.length > SHOWN_CONTENT_CHARS ? `${content.slice(0, SHOWN_CONTENT_CHARS)}...` : content;
}

/** `  [type:scope] name — description` and the content (cut to 500 chars) on the next line. */
export function formatMemoryLine(memory: MemoryRow): string {
  const description = memory.description ? ` — ${memory.description}` : '';
  return `  [${memory.type}:${memory.scope}] ${memory.name}${description}\n    ${shown(memory.content)}`;
}

/** The `<memories>` block of the system message ('' when there is nothing to show). */
export function buildMemoryBlock(memories: readonly MemoryRow[]): string {
  if (memories.length === 0) return '';
  const lines = memories.map((memory) => {
    const description = memory.description ? ` description="${escapeXml(memory.description)}"` : '';
    const attributes = `name="${escapeXml(memory.name)}" type="${escapeXml(memory.type)}" scope="${escapeXml(memory.scope)}"${description}`;
    return `  <memory ${attributes}>${escapeXml(shown(memory.content))}</memory>`;
  });
  return ['<memories>', ...lines, '</memories>'].join('\n');
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
