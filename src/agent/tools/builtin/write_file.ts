/** The `write_file` tool: creates or replaces a file, creating parent directories. */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fsErrorText, openConfined, replaceOpened } from '../confined-file.js';
import { checkToolPath, NO_EXTRA_ACCESS } from '../tool-access.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

const PREVIEW_CHARS = 500;

async function exists(absolute: string): Promise<boolean> {
  try {
    await stat(absolute);
    return true;
  } catch {
    return false;
  }
}

async function prepare(args: Record<string, unknown>, context: ToolContext): Promise<ToolPreparation> {
  const input = typeof args['path'] === 'string' ? args['path'].trim() : '';
  if (input === '') {
    return {
      header: '✗ write_file: missing path',
      preview: '',
      needsApproval: false,
      approvalLabel: 'write_file',
      error: 'Error: missing path',
    };
  }
  const content = typeof args['content'] === 'string' ? args['content'] : '';
  const check = await checkToolPath(input, context.cwd, context.access ?? NO_EXTRA_ACCESS, 'write');
  if (!check.ok)
    return {
      header: '✗ write_file: outside the workspace',
      preview: '',
      needsApproval: false,
      approvalLabel: 'write_file',
      error: check.error,
    };
  const { absolute, canonical } = check;
  const isBlindOverwrite = (await exists(absolute)) && !context.readFiles.has(canonical);
  const excerpt =
    content.length > PREVIEW_CHARS
      ? `${content.slice(0, PREVIEW_CHARS)}\n... (${content.length} chars total)`
      : content;
  const warning = isBlindOverwrite
    ? `⚠ ${input} already exists and has not been read: its content will be replaced.\n`
    : '';
  return {
    header: `⚙ write_file: ${input} (${content.length} chars)`,
    preview: warning + excerpt,
    needsApproval: true,
    approvalLabel: isBlindOverwrite ? 'overwrite_file' : 'write_file',
  };
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const input = String(args['path'] ?? '').trim();
  if (input === '') return { output: 'Error: missing path', isError: true };
  const content = typeof args['content'] === 'string' ? args['content'] : '';
  const access = context.access ?? NO_EXTRA_ACCESS;
  const check = await checkToolPath(input, context.cwd, access, 'write');
  if (!check.ok) return { output: check.error, isError: true };
  try {
    await mkdir(path.dirname(check.absolute), { recursive: true });
  } catch (error) {
    return { output: fsErrorText(input, (error as NodeJS.ErrnoException).code, 'write'), isError: true };
  }
  // Checked again after the directories exist: openConfined refuses anything that moved meanwhile.
  const opened = await openConfined(input, context.cwd, access, 'create');
  if (!opened.ok) return { output: opened.error, isError: true };
  try {
    await replaceOpened(opened.handle, content, context.signal);
  } catch (error) {
    context.signal.throwIfAborted();
    return { output: fsErrorText(input, (error as NodeJS.ErrnoException).code, 'write'), isError: true };
  } finally {
    await opened.handle.close();
  }
  context.readFiles.add(opened.canonical);
  return { output: `Wrote ${content.length} chars to ${input}`, isError: false };
}

/** Handler of the `write_file` tool. */
export const writeFileHandler: ToolHandler = { name: 'write_file', prepare, execute };
