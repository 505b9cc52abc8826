/**
 * Attachments are stored in history as references to files in the workstream folder (ADR 0017), so the conversations
 * table holds no base64 and the images survive a restart. Each request gets them back as image parts, or as a note
 * when the model has no vision or the file is gone.
 */
import { LRUCache } from 'lru-cache';
import { NO_EXTRA_ACCESS } from '../tools/tool-access.js';
import { openConfined, readOpened } from '../tools/confined-file.js';
import type { ContentPart, ImagePart, Message } from '../messages.js';

/** Base64 of recently sent attachments (a turn rebuilds its request every step), bounded by size. */
const encoded = new LRUCache<string, string>({
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (value) => Math.max(1, value.length),
});

/** The largest saved image read back (the gateway saves them resized far below this). */
const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;

export function noVisionNote(file: string): string {
  return `[Image ${file} is saved in the workspace; the current model cannot view images.]`;
}

function missingNote(file: string): string {
  return `[Image ${file} is no longer available in the workspace.]`;
}

function hasFileImage(message: Message): boolean {
  if (message.role !== 'user' && message.role !== 'tool') return false;
  return (
    typeof message.content !== 'string' &&
    message.content.some((part) => part.type === 'image' && part.file !== undefined)
  );
}

/** Base64 of a saved image, read without following links out of the workstream folder; undefined when unreadable. */
async function loadImage(file: string, cwd: string, signal: AbortSignal): Promise<string | undefined> {
  const opened = await openConfined(file, cwd, NO_EXTRA_ACCESS, 'read');
  if (!opened.ok) return undefined;
  try {
    if (!opened.info.isFile() || opened.info.size > MAX_IMAGE_FILE_BYTES) return undefined;
    const key = `${opened.canonical}\u0000${opened.info.size}\u0000${opened.info.mtimeMs}`;
    const cached = encoded.get(key);
    if (cached !== undefined) return cached;
    const data = (await readOpened(opened.handle, signal)).toString('base64');
    encoded.set(key, data);
    return data;
  } catch {
    signal.throwIfAborted();
    return undefined;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

async function resolvePart(
  part: ImagePart & { file: string },
  cwd: string,
  supportsVision: boolean,
  signal: AbortSignal,
): Promise<ContentPart> {
  if (!supportsVision) return { type: 'text', text: noVisionNote(part.file) };
  const data = await loadImage(part.file, cwd, signal);
  return data === undefined
    ? { type: 'text', text: missingNote(part.file) }
    : { type: 'image', mediaType: part.mediaType, data };
}

async function resolveContent(
  content: ContentPart[],
  cwd: string,
  supportsVision: boolean,
  signal: AbortSignal,
): Promise<ContentPart[]> {
  return Promise.all(
    content.map((part) =>
      part.type === 'image' && part.file !== undefined
        ? resolvePart({ ...part, file: part.file }, cwd, supportsVision, signal)
        : part,
    ),
  );
}

/** The history with every image reference replaced by its image part (or a note); the history itself is not changed. */
export async function withAttachedImages(
  history: readonly Message[],
  cwd: string,
  supportsVision: boolean,
  signal: AbortSignal,
): Promise<Message[]> {
  if (!history.some(hasFileImage)) return [...history];
  return Promise.all(
    history.map(async (message): Promise<Message> => {
      if (
        !hasFileImage(message) ||
        (message.role !== 'user' && message.role !== 'tool') ||
        typeof message.content === 'string'
      )
        return message;
      return { ...message, content: await resolveContent(message.content, cwd, supportsVision, signal) };
    }),
  );
}
