/** The `read_file` tool: line-numbered text, or an image for vision models. */
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { ContentPart } from '../../messages.js';
import { openConfined, readOpened } from '../confined-file.js';
import { locateToolPath } from '../resolve-tool-path.js';
import { checkToolPath, NO_EXTRA_ACCESS } from '../tool-access.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.tiff': 'image/tiff',
  '.tif': 'image/tiff',
  '.ico': 'image/x-icon',
};

/** Largest image sent to a vision model. */
export const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
/** Largest text file read; bigger files must be read with bash (head, sed). */
export const MAX_TEXT_BYTES = 20 * 1024 * 1024;

/** The image media type for a path, or undefined for non-images (SVG is text). */
export function imageMediaType(filePath: string): string | undefined {
  return IMAGE_TYPES[path.extname(filePath).toLowerCase()];
}

function failure(header: string, error: string): ToolPreparation {
  return { header: `✗ read_file: ${header}`, preview: '', needsApproval: false, approvalLabel: 'read_file', error };
}

async function prepare(args: Record<string, unknown>, context: ToolContext): Promise<ToolPreparation> {
  const input = typeof args['path'] === 'string' ? args['path'].trim() : '';
  if (input === '') return failure('missing path', 'Error: missing path');
  const offset = args['offset'] as number | undefined;
  const limit = args['limit'] as number | undefined;
  if (offset !== undefined && offset < 1) return failure('bad offset', `Error: offset must be >= 1 (got ${offset})`);
  if (limit !== undefined && limit < 1) return failure('bad limit', `Error: limit must be >= 1 (got ${limit})`);
  const check = await checkToolPath(input, context.cwd, context.access ?? NO_EXTRA_ACCESS, 'read');
  if (!check.ok) return failure('outside the workspace', check.error);
  // Registered at preparation so that a read and an edit of the same file in one batch pass the edit guard.
  context.readFiles.add(check.canonical);
  const start = offset ?? 1;
  const range =
    limit !== undefined
      ? ` (lines ${start}-${start + limit - 1})`
      : offset !== undefined
        ? ` (from line ${start})`
        : '';
  return { header: `⚙ read_file: ${input}${range}`, preview: '', needsApproval: false, approvalLabel: 'read_file' };
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const input = String(args['path'] ?? '').trim();
  if (input === '') return { output: 'Error: missing path', isError: true };
  const { canonical } = await locateToolPath(input, context.cwd);
  const result = await readTarget(input, args, context);
  if (result.isError) context.readFiles.delete(canonical);
  else context.readFiles.add(canonical);
  return result;
}

async function readTarget(input: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const opened = await openConfined(input, context.cwd, context.access ?? NO_EXTRA_ACCESS, 'read');
  if (!opened.ok) return { output: opened.error, isError: true };
  try {
    const size = opened.info.size;
    const mediaType = imageMediaType(opened.canonical);
    if (mediaType !== undefined) return await readImage(input, opened.handle, size, mediaType, context);
    if (size > MAX_TEXT_BYTES) {
      return {
        output: `Error: ${input} is ${formatMb(size)}, larger than the ${formatMb(MAX_TEXT_BYTES)} read_file limit. Use bash (head, tail, sed -n) to read parts of it.`,
        isError: true,
      };
    }
    return await readText(input, opened.handle, size, args, context.signal);
  } finally {
    await opened.handle.close();
  }
}

async function readText(
  input: string,
  handle: FileHandle,
  size: number,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolResult> {
  let buffer: Buffer;
  try {
    buffer = await readOpened(handle, signal);
  } catch (error) {
    signal.throwIfAborted();
    return { output: describeFsError(input, error), isError: true };
  }
  if (buffer.subarray(0, 8192).includes(0)) {
    return {
      output: `Error: ${input} looks like a binary file (${size.toLocaleString('en-US')} bytes); read_file shows text files only.`,
      isError: true,
    };
  }
  const text = buffer.toString('utf8');
  if (text === '') return { output: '(empty file)', isError: false };
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const start = (args['offset'] as number | undefined) ?? 1;
  const limit = args['limit'] as number | undefined;
  if (start > lines.length) {
    return { output: `(no lines: ${input} has ${lines.length} lines, offset was ${start})`, isError: false };
  }
  const slice = lines.slice(start - 1, limit === undefined ? undefined : start - 1 + limit);
  const numbered = slice.map((line, index) => `${String(start + index).padStart(4)}\t${line.trimEnd()}`);
  return { output: numbered.join('\n'), isError: false };
}

async function readImage(
  input: string,
  handle: FileHandle,
  size: number,
  mediaType: string,
  context: ToolContext,
): Promise<ToolResult> {
  if (!context.supportsVision) {
    return {
      output: `Binary image file: ${input} (${size.toLocaleString('en-US')} bytes). Current model does not support vision.`,
      isError: false,
    };
  }
  if (size > MAX_IMAGE_BYTES) {
    return {
      output: `Error: image ${input} is ${(size / 1024 / 1024).toFixed(1)} MB, exceeds 4 MB limit for vision.`,
      isError: true,
    };
  }
  try {
    const data = await readOpened(handle, context.signal);
    const output: ContentPart[] = [
      { type: 'text', text: `Image file: ${input} (${data.length.toLocaleString('en-US')} bytes)` },
      { type: 'image', mediaType, data: data.toString('base64') },
    ];
    return { output, isError: false };
  } catch (error) {
    context.signal.throwIfAborted();
    return { output: describeFsError(input, error), isError: true };
  }
}

function formatMb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Tool-result text for a filesystem failure (codes, never stack traces). */
export function describeFsError(input: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return `Error: ${input} not found`;
  if (code === 'EACCES' || code === 'EPERM') return `Error reading ${input}: permission denied`;
  if (code === 'EISDIR') return `Error: ${input} is a directory, not a file`;
  return `Error reading ${input}: ${code ?? (error instanceof Error ? error.message : 'unknown error')}`;
}

/** Handler of the `read_file` tool. */
export const readFileHandler: ToolHandler = { name: 'read_file', prepare, execute };
