/** The `edit_file` tool: replaces an exact, unique piece of text in a file the model has read. */
import { fsErrorText, openConfined, readOpened, replaceOpened } from '../confined-file.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';
import { checkToolPath, NO_EXTRA_ACCESS } from '../tool-access.js';

/** Reads the file through the confined open (symlink-safe, regular files only). */
async function readExisting(
  input: string,
  context: ToolContext,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  const opened = await openConfined(input, context.cwd, context.access ?? NO_EXTRA_ACCESS, 'read');
  if (!opened.ok) return opened;
  try {
    return { ok: true, text: (await readOpened(opened.handle, context.signal)).toString('utf8') };
  } catch (error) {
    context.signal.throwIfAborted();
    return { ok: false, error: fsErrorText(input, (error as NodeJS.ErrnoException).code, 'read') };
  } finally {
    await opened.handle.close();
  }
}

/** 1-based start line of every occurrence of `needle`, overlapping ones included. */
export function findOccurrences(text: string, needle: string): { index: number; line: number }[] {
  if (needle === '') return [];
  const found: { index: number; line: number }[] = [];
  let line = 1;
  let scanned = 0;
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + 1)) {
    for (; scanned < index; scanned++) if (text.charCodeAt(scanned) === 10) line++;
    found.push({ index, line });
  }
  return found;
}

/** The occurrence whose start line is closest to `nearLine` (earliest on ties). */
export function pickNearest<T extends { line: number }>(occurrences: readonly T[], nearLine: number): T | undefined {
  let best: T | undefined;
  for (const occurrence of occurrences) {
    if (best === undefined || Math.abs(occurrence.line - nearLine) < Math.abs(best.line - nearLine)) best = occurrence;
  }
  return best;
}

interface EditArgs {
  input: string;
  oldString: string;
  newString: string;
  nearLine: number | undefined;
  replaceAll: boolean;
}

function readArgs(args: Record<string, unknown>): EditArgs {
  return {
    input: typeof args['path'] === 'string' ? args['path'].trim() : '',
    oldString: typeof args['old_string'] === 'string' ? args['old_string'] : '',
    newString: typeof args['new_string'] === 'string' ? args['new_string'] : '',
    nearLine:
      typeof args['near_line'] === 'number' && Number.isInteger(args['near_line']) ? args['near_line'] : undefined,
    replaceAll: args['replace_all'] === true,
  };
}

function failure(header: string, error: string): ToolPreparation {
  return { header: `✗ edit_file: ${header}`, preview: '', needsApproval: false, approvalLabel: 'edit_file', error };
}

function diffPreview(oldString: string, newString: string): string {
  const minus = oldString
    .slice(0, 200)
    .split('\n')
    .map((line) => `- ${line}`);
  const plus =
    newString === ''
      ? [`(deletion — ${oldString.length} chars removed)`]
      : newString
          .slice(0, 200)
          .split('\n')
          .map((line) => `+ ${line}`);
  return [...minus, ...plus].join('\n');
}

/** Checks the guard and the match count; returns the problem text, or undefined when the edit can proceed. */
function matchProblem(edit: EditArgs, text: string, suffix: string): string | undefined {
  const occurrences = findOccurrences(text, edit.oldString);
  if (occurrences.length === 0) {
    return suffix === ''
      ? `Error: old_string not found in ${edit.input}`
      : `Error: old_string no longer found in ${edit.input}${suffix}`;
  }
  if (occurrences.length > 1 && edit.nearLine === undefined && !edit.replaceAll) {
    const lines = occurrences.map((occurrence) => occurrence.line).join(', ');
    return `Error: old_string found ${occurrences.length} times at lines ${lines} — use near_line to pick one, or replace_all${suffix}`;
  }
  return undefined;
}

async function prepare(args: Record<string, unknown>, context: ToolContext): Promise<ToolPreparation> {
  const edit = readArgs(args);
  if (edit.input === '') return failure('missing path', 'Error: missing path');
  if (edit.oldString === '') return failure('missing old_string', 'Error: missing old_string');
  const check = await checkToolPath(edit.input, context.cwd, context.access ?? NO_EXTRA_ACCESS, 'write');
  if (!check.ok) return failure('outside the workspace', check.error);
  if (!context.readFiles.has(check.canonical)) {
    return failure('file not read', `Error: must read_file ${edit.input} before editing it`);
  }
  const read = await readExisting(edit.input, context);
  if (!read.ok) return failure('cannot read file', read.error);
  const problem = matchProblem(edit, read.text, '');
  if (problem !== undefined)
    return failure(problem.startsWith('Error: old_string not') ? 'no match' : 'ambiguous match', problem);
  return {
    header: `⚙ edit_file: ${edit.input}`,
    preview: diffPreview(edit.oldString, edit.newString),
    needsApproval: true,
    approvalLabel: 'edit_file',
  };
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const edit = readArgs(args);
  const prepared = await prepare(args, context);
  if (prepared.error !== undefined && !prepared.error.startsWith('Error: old_string')) return failed(prepared.error);
  // Re-read through the same descriptor it is written with: the file may have changed since approval.
  const opened = await openConfined(edit.input, context.cwd, context.access ?? NO_EXTRA_ACCESS, 'update');
  if (!opened.ok) return failed(opened.error);
  let outcome: { count: number; line: number };
  try {
    const text = (await readOpened(opened.handle, context.signal)).toString('utf8');
    const problem = matchProblem(edit, text, ' (file changed)');
    if (problem !== undefined) return failed(problem);
    const { updated, count, line } = applyEdit(text, edit);
    await replaceOpened(opened.handle, updated, context.signal);
    outcome = { count, line };
  } catch (error) {
    context.signal.throwIfAborted();
    return failed(`Error writing ${edit.input}: ${(error as NodeJS.ErrnoException).code ?? 'write failed'}`);
  } finally {
    await opened.handle.close();
  }
  const { count, line } = outcome;
  const what = count === 1 ? `replaced 1 occurrence at line ${line}` : `replaced ${count} occurrences`;
  return { output: `Edited ${edit.input}: ${what}`, isError: false };
}

function applyEdit(text: string, edit: EditArgs): { updated: string; count: number; line: number } {
  if (edit.replaceAll) {
    const parts = text.split(edit.oldString);
    const first = findOccurrences(text, edit.oldString)[0]?.line ?? 1;
    return { updated: parts.join(edit.newString), count: parts.length - 1, line: first };
  }
  const occurrences = findOccurrences(text, edit.oldString);
  const target = (edit.nearLine === undefined ? occurrences[0] : pickNearest(occurrences, edit.nearLine)) ?? {
    index: 0,
    line: 1,
  };
  const updated = text.slice(0, target.index) + edit.newString + text.slice(target.index + edit.oldString.length);
  return { updated, count: 1, line: target.line };
}

function failed(output: string): ToolResult {
  return { output, isError: true };
}

/** Handler of the `edit_file` tool. */
export const editFileHandler: ToolHandler = { name: 'edit_file', prepare, execute };
