/** The `write_file` tool: creates or replaces a file, creating parent directories. */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalPath, locateToolPath } from '../resolve-tool-path.js';
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
    return { header: '✗ write_file: missing path', preview: '', needsApproval: false, approvalLabel: 'write_file', error: 'Error: missing path' };
  }
  const content = typeof args['content'] === 'string' ? args['content'] : '';
  const { absolute, canonical } = await locateToolPath(input, context.cwd);
  const isBlindOverwrite = (await exists(absolute)) && !context.readFiles.has(canonical);
  const excerpt = content.length > PREVIEW_CHARS ? `${content.slice(0, PREVIEW_CHARS)}\n... (${content.length} chars total)` : content;
  const warning = isBlindOverwrite ? `⚠ ${input} already exists and has not been read: its content will be replaced.\n` : '';
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
  const { absolute } = await locateToolPath(input, context.cwd);
  try {
    await mkdir(path.dirname(absolute), { recursive: true });
    await writeFile(absolute, content, { encoding: 'utf8', signal: context.signal });
  } catch (error) {
    context.signal.throwIfAborted();
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? 'write failed');
    return { output: `Error writing ${input}: ${reason}`, isError: true };
  }
  context.readFiles.add(await canonicalPath(absolute));
  return { output: `Wrote ${content.length} chars to ${input}`, isError: false };
}

/** Handler of the `write_file` tool. */
export const writeFileHandler: ToolHandler = { name: 'write_file', prepare, execute };
